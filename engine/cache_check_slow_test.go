//go:build slow

package engine

// cacheCheckAll is true with -tags slow (.ci/run): the decision cache's
// check sees every answer (cache_check_test.go).
const cacheCheckAll = true
