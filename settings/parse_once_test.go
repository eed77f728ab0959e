package settings

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/spf13/viper"
)

// TestViperReadsTheDecodedDocument: a settings file is decoded once;
// viper given that document (MergeConfigMap of a copy) holds exactly what
// it held when it decoded the file itself (ReadConfig), and the document
// keeps its keys as written.
func TestViperReadsTheDecodedDocument(t *testing.T) {
	for _, c := range []struct{ format, data string }{
		{"yaml", "permissions:\n  allow: [\"Bash(npm run:*)\"]\n  defaultMode: acceptEdits\n  additionalDirectories: [../x]\nallow_rules:\n  Bash: [{rule_content: 'ls:*'}]\nworking_directories:\n  /Tmp/W: {path: /Tmp/W}\nNetwork_Reads: ask\n"},
		{"yml", "permissions: {deny: [Read(~/.ssh/**)]}\ndangerous_paths: {files: {add: [.envrc]}}\nenvironment_is_secret: 'false'\n"},
		{"json", `{"permissions": {"ask": ["Bash(git push:*)"], "disableBypassPermissionsMode": "disable"}, "deny_rules": {"WebFetch": [{"rule_content": "domain:x.example"}]}, "Mode": "plan"}`},
		{"toml", "mode = \"plan\"\n[permissions]\nallow = [\"Edit(src/**)\"]\n[[allow_rules.Bash]]\nrule_content = \"make:*\"\n[[allow_rules.Bash]]\nrule_content = \"go test:*\"\n"},
	} {
		old := viper.New()
		old.SetConfigType(c.format)
		if err := old.ReadConfig(bytes.NewReader([]byte(c.data))); err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		raw, err := rawDocument([]byte(c.data), c.format)
		if err != nil {
			t.Fatal(err)
		}
		before := deepCopy(raw)
		v := viper.New()
		v.SetConfigType(c.format)
		if err := v.MergeConfigMap(deepCopy(raw).(map[string]any)); err != nil {
			t.Fatal(err)
		}
		if got, want := v.AllSettings(), old.AllSettings(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: viper from the document\n%#v\nfrom the file\n%#v", c.format, got, want)
		}
		if !reflect.DeepEqual(raw, before) {
			t.Errorf("%s: the document changed under viper: %#v", c.format, raw)
		}
	}
}
