//go:build race

package engine

// testGCPercent is 0 under -race: TestMain leaves Go's collector as it is,
// since the race detector's shadow memory grows with the heap several
// times over (gcpercent_norace_test.go).
const testGCPercent = 0
