//go:build !slow

package opaplugin

// slowTests is false without -tags slow: the eviction test bounds its
// plugin at quickMaxProjects instead of filling MaxProjects (seconds of
// settings rewrites); .ci/run fills MaxProjects with -tags slow (docs/development.md).
const slowTests = false

// quickMaxProjects is the quick suite's bound: more than the two projects
// of the concurrent part, so that they are evicted only by the filling.
const quickMaxProjects = 16
