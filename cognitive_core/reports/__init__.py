"""What the bot reports to a principal: the daily brief (`briefs`), the weekly review (`reviews`), `/did` and
`/concerns` (`summaries`). Pure layout and texts beside each (`brief_rules`, `brief_texts`, `review_rules`).
The way in: `briefs.send_due`, `reviews.send_due` (on schedule), `briefs.answer`, `reviews.answer` (on demand).
"""
