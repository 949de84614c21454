"""Golden tests of the scrubber: key material never reaches trial.json, trajectories or the
evidence chain, whatever the agent printed (no cluster needed)."""

import base64

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from kubeproof.evidence import keys
from kubeproof.scrub import Scrubber, environment_secrets, kubeconfig_secrets, scrub

JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEyMyJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0."
    "c2lnbmF0dXJlLWJ5dGVzLWhlcmUtMTIzNDU2Nzg5MA"
)


def _ec_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()


def test_pem_private_keys_of_every_kind_are_removed_whole_or_cut_short():
    ec_pem, ed_pem = _ec_pem(), keys.private_pem(keys.generate()).decode()
    out = scrub(f"before\n{ec_pem}middle\n{ed_pem}after")
    assert "PRIVATE KEY" not in out and "MHcCAQEE" not in out
    assert out.startswith("before\n[redacted: private key]") and out.endswith("after")
    cut = scrub(ec_pem[:120])  # a key cut off by output truncation
    assert cut == "[redacted: private key]"


def test_base64_of_a_private_key_is_removed_and_a_certificate_authority_kept():
    key_b64 = base64.b64encode(_ec_pem().encode()).decode()
    ca_b64 = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    out = scrub(f"client-key-data: {key_b64}\ncertificate-authority-data: {ca_b64.decode()}")
    assert key_b64 not in out and "[redacted" in out
    assert ca_b64.decode() in out


@pytest.mark.parametrize(
    "text",
    [
        f"Authorization: Bearer {JWT}",
        "curl -H 'Authorization: bearer abcdefghijklmnop1234' https://x",
        f"kubectl --token={JWT} get pods",
        "kubectl --token abcdefghijklmnop get pods",
        f'{{"token": "{JWT}"}}',
        "  token: abcdefghijklmnopqrstu",
        "password: hunter2hunter2",
        "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123",
        "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
    ],
)
def test_tokens_passwords_and_api_keys_are_removed(text):
    out = scrub(text)
    assert "[redacted" in out
    for secret in (JWT, "abcdefghijklmnop", "hunter2hunter2", "abcdefghijklmnopqrstuvwxyz"):
        assert secret not in out


def test_ordinary_output_is_untouched():
    text = (
        "NAME   READY   STATUS\nweb-1  1/1     Running\n"
        "automountServiceAccountToken: false\nsecret/db-password created\n"
    )
    assert scrub(text) == text
    assert scrub("") == ""


def test_known_secrets_go_in_every_form_they_may_be_printed(tmp_path):
    cert = (
        "-----BEGIN CERTIFICATE-----\nMIIBadmincertificatebody0123456789\n"
        "-----END CERTIFICATE-----\n"
    )
    key = _ec_pem()
    config = tmp_path / "admin.kubeconfig"
    config.write_text(
        "users:\n- name: admin\n  user:\n"
        f"    client-certificate-data: {base64.b64encode(cert.encode()).decode()}\n"
        f"    client-key-data: {base64.b64encode(key.encode()).decode()}\n"
        "- name: other\n  user: {token: abcdefghijklmnopqrstuvwxyz}\n"
    )
    found = kubeconfig_secrets(config)
    assert cert in found and key in found and "abcdefghijklmnopqrstuvwxyz" in found
    s = Scrubber.for_harness([config], ["my-signing-seed-0123456789"])
    b64 = base64.b64encode(cert.encode()).decode()
    for printed in (cert, b64, "MIIBadmincertificatebody0123456789", "my-signing-seed-0123456789"):
        assert printed not in s.text(f"x {printed} y"), printed
    value = s.value({"out": [cert], cert: 1})
    assert cert not in str(value)


def test_secret_named_environment_variables_are_known_secrets():
    env = {"MODEL_API_KEY": "abcd1234abcd1234", "HOME": "/root/abcdefghijkl", "TOKEN": "short"}
    assert environment_secrets(env) == ["abcd1234abcd1234"]
