"""The inbound port the composition root hands to the channel adapters: perception records, the processor wakes."""

from __future__ import annotations

from action import buttons
from channels.inbound import InboundMessage, InboundPress, InboundRead, PressAnswer
from cognitive_core.presses import door as presses
from concern import receipts
from fact import service as facts
from kernel.context import AppContext, UnitOfWork
from kernel.redaction import error_text
from perception.service import record_message, record_press, record_read


class PerceptionInbound:
    """Records what adapters receive as message_received facts (once per platform event) and wakes the pipeline."""

    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    def record(self, message: InboundMessage) -> bool:
        """The fact and its inbox row, durably; True when the event was new."""
        _, created = record_message(self.ctx, message=message)
        return created

    def press(self, press: InboundPress) -> PressAnswer:
        """Record the press (once per platform event) and answer it at once with the cheap checks' toast."""
        with self.ctx.reader() as uow:
            about = presses.about(buttons.get(uow, token=press.token))
        fact, created = record_press(self.ctx, press=press, about=about)
        with self.ctx.reader() as uow:
            presser = fact.content.get("person_id")
            toast = presses.toast(uow, token=press.token, presser_id=presser, fact_id=fact.fact_id)
        return PressAnswer(toast=toast, first=created)

    def read(self, receipt: InboundRead) -> bool:
        """The read's fact (once per platform event) and, with it, `read_at` on the loops whose latest message it is."""
        with self.ctx.uow(actor=f"{receipt.channel}_inbound") as uow:
            return record_receipt(uow, receipt)

    def skipped(self, *, channel: str, event_id: str, reason: str) -> None:
        """A `system` fact (once per event) saying an unreadable event was passed over, and why."""
        with self.ctx.uow(actor=f"{channel}_inbound") as uow:
            facts.append(
                uow,
                fact_type="system",
                source="perception",
                dedup_key=f"{channel}:skipped:{event_id}",
                content={
                    "event": f"{channel}_update_skipped",
                    "update_id": int(event_id) if event_id.isdigit() else event_id,
                    "reason": error_text(reason),
                },
            )

    def wake(self) -> None:
        """New signals wait in the inbox: the processor takes them."""
        self.ctx.signal_recorded()


def record_receipt(uow: UnitOfWork, receipt: InboundRead) -> bool:
    """A read receipt's fact (once per platform event) and `read_at` on the loops it names, in the caller's
    transaction; True when it was new."""
    fact, created = record_read(uow, receipt=receipt)
    if created:
        receipts.record_read(
            uow,
            channel=receipt.channel,
            reader=receipt.external_user_id,
            message_ids=list(receipt.message_ids),
            read_at=receipt.read_at,
            via="event",
            causation_id=fact.fact_id,
        )
    return created
