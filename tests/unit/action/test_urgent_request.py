"""What a request may ask of urgency: only a follow-up, only in the modes Feishu has."""

from __future__ import annotations

import pytest

from action.models import ActionRequest

BASE = {
    "action_type": "send_message",
    "decision_ref": "dec_20260318_001",
    "target_person_id": "p_zs",
    "text": "提测什么时候能给？",
    "concern_id": "con_20260318_001",
}


def test_a_follow_up_may_be_made_urgent_in_app_sms_and_phone_order():
    assert ActionRequest(**BASE, follow_up=True, urgent=["app", "sms"]).urgent == ["app", "sms"]


def test_only_a_follow_up_is_made_urgent():
    with pytest.raises(ValueError, match="only a follow-up is made urgent"):
        ActionRequest(**BASE, urgent=["app"])


def test_an_urgent_mode_feishu_lacks_is_refused():
    with pytest.raises(ValueError, match="urgent"):
        ActionRequest(**BASE, follow_up=True, urgent=["fax"])
