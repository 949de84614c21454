"""The operations beyond CREATE: UPDATE, DELETE and COMMAND templates, built for every
resource type and tier on the CREATE template's objects (docs/generate.md, "Operations")."""
