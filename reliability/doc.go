// Package reliability holds Handoff's reliability and security suites: concurrency,
// crash (kill -9), fuzzing of the whole pipeline, an adversarial corpus, failpoints and
// tamper evidence. It has no API; everything lives in its tests. RELIABILITY.md at the
// root of the repository gives each figure with the command that reproduces it.
package reliability
