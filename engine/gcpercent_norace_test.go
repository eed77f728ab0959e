//go:build !race

package engine

// testGCPercent is the collector's percent for the test binary (TestMain):
// 400 (see there). Not under -race (.ci/run runs this package with it),
// whose shadow memory grows with the heap several times over.
const testGCPercent = 400
