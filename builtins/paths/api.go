// Package paths normalises, classifies and matches file paths for permopa:
// dangerous and credential paths, working-directory containment with symlink
// resolution, and the doublestar globs of file rules.
package paths
