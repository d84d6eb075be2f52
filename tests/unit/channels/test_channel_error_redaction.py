"""Every channel error is redacted and storable where it is made, whichever platform or proxy wrote the text."""

from __future__ import annotations

from channels.errors import InvalidRequest, Transient
from kernel import redaction
from kernel.redaction import REDACTED, remember_secrets


def test_a_feishu_style_error_loses_its_tenant_token_and_signed_link():
    error = InvalidRequest(
        "99991663 invalid access token tenant_access_token=t-g1044ab5Zzq9 for "
        "https://open.feishu.cn/file?code=Z9x8&sig=abc123&name=a.pdf",
        detail={"authorization": "Bearer t-g1044ab5Zzq9", "url": "https://x.example/a?token=s3cr3t&page=1"},
    )
    recorded = error.to_attempt()
    assert "t-g1044ab5Zzq9" not in str(recorded) and "abc123" not in str(recorded) and "Z9x8" not in str(recorded)
    assert f"tenant_access_token={REDACTED}" in error.message and "name=a.pdf" in error.message
    assert error.detail == {"authorization": REDACTED, "url": f"https://x.example/a?token={REDACTED}&page=1"}


def test_a_configured_secret_is_redacted_in_an_error_even_without_a_known_shape(monkeypatch):
    monkeypatch.setattr(redaction, "_current", redaction._current)  # the process-wide secrets, restored after
    remember_secrets(["proxy-password-9f3k"])
    assert Transient("502 from proxy (auth proxy-password-9f3k rejected)").message == (
        f"502 from proxy (auth {REDACTED} rejected)"
    )


def test_an_error_text_with_unstorable_characters_is_made_storable():
    assert InvalidRequest("bad\x00text\ud800").message == "bad\ufffdtext\ufffd"
