//go:build !slow

package engine

// cacheCheckAll is false without -tags slow: the quick suite checks a
// sample of the decision cache's answers that covers every class
// (cacheCheckSampled).
const cacheCheckAll = false
