# A failure is counted once: the same failure posted again under a new request_id before
# the retry it caused was due is refused and spends nothing.
package handoff.video_test

import data.handoff.video

now_ms := floor(time.parse_rfc3339_ns(now) / 1000000)

# st_retry_pending is PROMPTING after one timeout of the prompting task, whose retry
# (attempt 2, 4000 ms: base 2000 ms doubled) is due 4 s after now.
st_retry_pending := with_state(st_prompting, {"counters": {"retry/prompting": 1, "retry_due_ms/prompting": now_ms + 4000}})

decide_at(request, st, at) := d if {
	d := video.decision with input as object.union(input_of(request, st), {"now": at})
}

test_retry_records_when_it_is_due if {
	d := decide(failure("prompting", "vfx-supervisor", "timeout"), st_prompting)
	d.outcome == "retry"
	d.retry.delay_ms == 4000
	sprintf("retry_due_ms/prompting %d", [now_ms + 4000]) in counter_events(d)
}

test_duplicate_failure_before_the_retry_is_due if {
	d := decide(failure("prompting", "vfx-supervisor", "timeout"), st_retry_pending)
	codes(d) == {"FAILURE_REPEATED"}
	d.outcome == "block"
	d.status_after == "PROMPTING"
	count(d.events) == 0
}

test_duplicate_failure_of_another_class_before_the_retry_is_due if {
	d := decide_at(failure("prompting", "vfx-supervisor", "permanent"), st_retry_pending, "2026-04-02T10:00:03.999Z")
	"FAILURE_REPEATED" in codes(d)
	d.outcome == "block"
}

test_failure_after_the_retry_was_due_twin if {
	d := decide_at(failure("prompting", "vfx-supervisor", "timeout"), st_retry_pending, "2026-04-02T10:00:04.000Z")
	count(d.reasons) == 0
	d.outcome == "retry"
	d.retry.attempt == 3
	"retry/prompting 1" in counter_events(d)
}

test_accepted_work_settles_the_pending_retry if {
	st := with_state(st_storyboarding, {"counters": {"retry_due_ms/storyboarding": now_ms + 60000}})
	d := decide(deliver("A4"), st)
	d.outcome == "allow"
	"retry_due_ms/storyboarding 0" in counter_events(d)
	d2 := decide(deliver("A4"), st_storyboarding)
	not "retry_due_ms/storyboarding 0" in counter_events(d2)
}

# The same return posted again under a new request_id finds the work already returned:
# the check status is over, so it is refused and counts no second return.
test_same_return_posted_again_is_not_counted if {
	req := object.union(script_check("REVISE", [att("humanize_dialogue_passed", "director", false, "仍有AI腔")]), {"request_id": "req-review-again"})
	st := with_state(st_script_returned, {"counters": {"returns/A6": 1}})
	d := decide(req, st)
	codes(d) == {"OUT_OF_SEQUENCE"}
	count(d.events) == 0
	first := decide(script_check("REVISE", [att("humanize_dialogue_passed", "director", false, "仍有AI腔")]), st_script_intake)
	"returns/A6 1" in counter_events(first)
}
