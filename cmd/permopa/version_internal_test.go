package main

import (
	"runtime/debug"
	"testing"
)

// TestPermopaVersion: the ldflags version wins; then the module version
// `go install …@v1.2.3` records; a build from a checkout ("(devel)") names
// its commit when Go recorded one.
func TestPermopaVersion(t *testing.T) {
	info := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/permopa/permopa", Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	cases := []struct {
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"v1.4.0", info("(devel)"), "v1.4.0"},
		{"", info("v0.9.1"), "v0.9.1"},
		{"", info("v0.9.2-0.20260101000000-0123456789ab"), "v0.9.2-0.20260101000000-0123456789ab"},
		{"", info("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "false"), "devel (commit 0123456789ab)"},
		{"", info("(devel)", "vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "devel (commit 0123456789ab, with local changes)"},
		{"", info("(devel)"), "devel (built from source without version information)"},
		{"", info(""), "devel (built from source without version information)"},
	}
	defer func(v string) { version = v }(version)
	for _, c := range cases {
		version = c.ldflags
		if got := permopaVersion(c.bi, true); got != c.want {
			t.Errorf("%q %+v: %q, want %q", c.ldflags, c.bi.Main, got, c.want)
		}
	}
	version = ""
	if got := permopaVersion(nil, false); got != "unknown (no build information)" {
		t.Errorf("no build info: %q", got)
	}
}
