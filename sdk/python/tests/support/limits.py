"""Time limits of the tests, as in test/support/timeLimits.ts: each bounds one wait for an event at
ten times what it takes on a quiet machine or more, so a busy machine does not fail a test."""

# The built server answering /healthz after its spawn (about 1.5 s on a quiet machine).
START_S = 60.0
# Any other wait: a bundle loaded, exposures flushed, a refresh seen (well under a second quietly).
STEP_S = 30.0
