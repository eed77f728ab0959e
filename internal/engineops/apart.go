package engineops

import "runtime"

// OPA's evaluator recurses deeply (continuation passing), so a decision
// needs tens of kilobytes of stack. A goroutine started per decision
// begins with a few kilobytes and grows its stack by copying it, doubling
// each time, on every decision: a quarter of a decision's CPU in the
// profile of BENCHMARKS.md, "Profiles". Decisions that run apart (to be
// answered by their deadline: the engine's decideBounded, the OPA plugin's
// checks) therefore run on goroutines
// that are kept between decisions, whose stacks stay grown; the runtime
// shrinks an idle one's stack at a garbage collection, by half at a time.

// idleEvaluators holds the parked evaluator goroutines, each waiting on
// its own channel for the next job. It is bounded: an evaluator that
// finds it full ends, so bursts do not leave goroutines behind.
var idleEvaluators = make(chan chan func(), 4*runtime.GOMAXPROCS(0))

// Go runs job on a goroutine of its own, a parked evaluator when one is
// idle: for callers that evaluate the policy apart from the goroutine that
// answers (the engine's decideBounded, the OPA plugin's checks). A panic in
// job ends the process as in a goroutine of its own; job recovers what it
// can.
func Go(job func()) {
	select {
	case w := <-idleEvaluators:
		w <- job
	default:
		go evaluator(job)
	}
}

func evaluator(job func()) {
	jobs := make(chan func())
	for {
		job()
		select {
		case idleEvaluators <- jobs:
		default:
			return
		}
		job = <-jobs
	}
}
