"""`kubeproof mcp` driven by a real MCP client (the `mcp` SDK over stdio) against a real
cluster: every call lands in a signed chain, with the audit log's record beside it."""

import asyncio
import json
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import run_cli

pytestmark = pytest.mark.cluster

MANIFEST = """apiVersion: v1
kind: ConfigMap
metadata:
  name: mcp-recorded
  namespace: default
data:
  color: blue
"""


async def _session(params: StdioServerParameters) -> dict:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools = sorted(t.name for t in (await session.list_tools()).tools)

        async def call(name: str, **args) -> str:
            result = await session.call_tool(name, args)
            return result.content[0].text

        prescribed = await call(
            "prescribe",
            intent="add the color setting",
            targets=["configmaps/default/mcp-recorded"],
            manifest=MANIFEST,
        )
        pid = prescribed.splitlines()[0].split()[-1]
        applied = await call("run_kubectl", args="apply -f -", stdin=MANIFEST)
        reported = await call("report", prescription_id=pid, verdict="success", outcome="applied")
        read = await call("run_kubectl", args="kubectl get configmap mcp-recorded -o name")
        bad = await call("report", prescription_id="p9999", verdict="success")
        return {
            "instructions": init.instructions,
            "tools": tools,
            "prescribed": prescribed,
            "applied": applied,
            "reported": reported,
            "read": read,
            "bad": bad,
        }


def test_an_mcp_client_is_recorded_in_a_signed_chain(cluster, tmp_path):
    evidence = tmp_path / "evidence"
    exe = str(Path(sys.executable).with_name("kubeproof"))
    params = StdioServerParameters(
        command=exe,
        args=[
            "mcp",
            "--kubeconfig", str(cluster.admin_kubeconfig),
            "--evidence", str(evidence),
            "--agent", "test-client",
            "--audit-log", str(cluster.audit_log),
            "--audit-user", "kubeproof-admin",
        ],
    )  # fmt: skip
    seen = asyncio.run(_session(params))
    assert seen["tools"] == ["prescribe", "report", "run_kubectl"]
    assert "prescribe" in seen["instructions"]
    assert seen["prescribed"].startswith("prescription p0001\nrisk: ")
    assert seen["applied"].startswith("exit code: 0") and "mcp-recorded created" in seen["applied"]
    assert seen["reported"] == "p0001 reported as success"
    assert "configmap/mcp-recorded" in seen["read"]
    assert seen["bad"].startswith("error: no prescription 'p9999'")

    verified = run_cli("evidence", "verify", str(evidence), "-o", "json")
    assert verified.returncode == 0, verified.stdout
    chain = [
        json.loads(x)
        for x in run_cli("evidence", "show", str(evidence), "-o", "jsonl").stdout.splitlines()
    ]
    commands = [e["payload"] for e in chain if e["type"] == "command"]
    assert commands[0]["command"].startswith("kubectl apply -f - <<'KUBEPROOF_STDIN'\n")
    assert "name: mcp-recorded" in commands[0]["command"]  # the manifest is in the record
    assert commands[0]["risk"]["operation"] == "mutate"
    created = [
        e["payload"] for e in chain if e["type"] == "audit" and e["payload"]["verb"] == "create"
    ]
    assert created and created[0]["name"] == "mcp-recorded" and created[0]["step"] == 1
    assert chain[-1]["type"] == "checkpoint" and chain[-1]["payload"]["final"]
    # a checkpoint after every call: nothing the client did is left unsigned
    assert sum(e["type"] == "checkpoint" for e in chain) >= 5
    signals = json.loads(run_cli("evidence", "signals", str(evidence), "-o", "json").stdout)
    violation = next(s for s in signals if s["name"] == "protocol_violation")
    assert violation["fired"] and "unknown_prescription 1" in violation["detail"]
    card = json.loads(run_cli("evidence", "scorecard", str(evidence), "-o", "json").stdout)
    assert card["compliance"]["ratio"] == 1.0 and card["mutations"] == 1
