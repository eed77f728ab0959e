//go:build slow

package opaplugin

// slowTests is true with -tags slow (.ci/run, docs/development.md): the
// eviction test fills the plugin's real bound, MaxProjects.
const slowTests = true

// quickMaxProjects is unused with -tags slow.
const quickMaxProjects = MaxProjects
