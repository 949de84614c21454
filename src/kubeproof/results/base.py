"""The base of every result model: JSON as the files have always held it.

A result file is read by people, by `evidence verify` (which hashes parts of it), by older
and newer kubeproof and by other programs, so the models keep three promises:

- keys are the ones trial.json and run.json have always had; a part that was not recorded
  (no model usage for a scripted agent, no broken-state assertions) is left out rather than
  written as null (`OMIT_IF_NONE`), as the dict-built files did;
- every field has a default, so an older file (or one cut short) reads without error;
- keys a model does not know are kept (`extra="allow"`) and written back unchanged, so a
  file written by a newer kubeproof survives a round trip through an older one.
"""

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer


class ResultModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=True)

    # fields left out of the JSON when they hold None (not recorded), rather than null
    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _omit_unrecorded(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict) and self.OMIT_IF_NONE:
            for key in self.OMIT_IF_NONE:
                if key in data and data[key] is None:
                    del data[key]
        return self._shape(data) if isinstance(data, dict) else data

    def _shape(self, data: dict) -> dict:
        """A last word on the JSON form (subclasses)."""
        return data

    def record(self) -> dict:
        """The JSON form as a dict, exactly what the file holds."""
        return self.model_dump(mode="json", by_alias=True)
