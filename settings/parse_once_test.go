package settings

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/viper"
)

// TestFileReadsWhatViperRead: the fileDoc reader (file.go) finds, for every
// key permopa reads, the value viper found in the same file (keys in
// another case, a key with dots standing for its path), as the settings
// were read before the typed reader.
func TestFileReadsWhatViperRead(t *testing.T) {
	for _, c := range []struct{ format, data string }{
		{"yaml", "permissions:\n  allow: [\"Bash(npm run:*)\"]\n  defaultMode: acceptEdits\n  additionalDirectories: [../x]\nallow_rules:\n  Bash: [{rule_content: 'ls:*'}]\nworking_directories:\n  /Tmp/W: {path: /Tmp/W}\nNetwork_Reads: ask\n"},
		{"yml", "permissions: {deny: [Read(~/.ssh/**)]}\ndangerous_paths: {files: {add: [.envrc]}}\nenvironment_is_secret: 'false'\n"},
		{"yaml", "PERMISSIONS:\n  Deny: [\"Bash(rm:*)\"]\npermissions.ask: [\"Bash(git push:*)\"]\nMode: plan\nbypass_honours_safety: 1\n"},
		{"json", `{"permissions": {"ask": ["Bash(git push:*)"], "disableBypassPermissionsMode": "disable"}, "deny_rules": {"WebFetch": [{"rule_content": "domain:x.example"}]}, "Mode": "plan"}`},
		{"toml", "mode = \"plan\"\n[permissions]\nallow = [\"Edit(src/**)\"]\n[[allow_rules.Bash]]\nrule_content = \"make:*\"\n[[allow_rules.Bash]]\nrule_content = \"go test:*\"\n"},
	} {
		old := viper.New()
		old.SetConfigType(c.format)
		if err := old.ReadConfig(bytes.NewReader([]byte(c.data))); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		tree, err := decodeTree("f."+c.format, c.format, []byte(c.data))
		if err != nil {
			t.Fatal(err)
		}
		f := fileFrom("f", tree)
		for key, v := range map[string]fileValue{
			"permissions.allow": f.Allow, "permissions.ask": f.Ask, "permissions.deny": f.Deny,
			"permissions.additionaldirectories": f.AdditionalDirectories, "network_reads": f.NetworkReads,
			"environment_is_secret": f.EnvironmentIsSecret, "bypass_honours_safety": f.BypassHonoursSafety,
			"permissions.disablebypasspermissionsmode": f.DisableBypassPermissionsMode,
			"dangerous_paths.files.add":                f.DangerousPaths["files.add"],
		} {
			var got any
			if v.Set() {
				got = v.node.plain()
			}
			if want := old.Get(key); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q: %s: File has %#v, viper %#v", c.format, strings.SplitN(c.data, "\n", 2)[0], key, got, want)
			}
		}
		mode := firstNonEmpty(old.GetString("permissions.defaultmode"), old.GetString("mode"))
		if got, _ := (&reader{}).text(f.DefaultMode); got != mode {
			t.Errorf("%s: mode %q, viper %q", c.format, got, mode)
		}
	}
}
