package main

import (
	"strings"
	"testing"
)

// TestHostSettingsErrorsArePositioned: a host settings file (.claude/
// settings.json, Gemini's settings.json) that is not JSON is reported at
// the line and column (from 1, counting characters) of the offending
// character, as doctor and install print it.
func TestHostSettingsErrorsArePositioned(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"{\"hooks\": {},}", "1:14: "},       // trailing comma in an object: the "}"
		{"{\n  \"hooks\": [1,\n]}", "3:1: "}, // trailing comma in a list: the "]"
		{"{\"hooks\" {}}", "1:10: "},         // missing colon: the "{"
		{"{\"a\": [1 2]}", "1:10: "},         // missing comma: the "2"
		{"{\"é\": x}", "1:7: "},              // columns count characters
		{"{\"a\": \"no end}\n", `1:15: invalid character '\n' in string literal`},
		{"{\"a\": 1", "1:8: unexpected end of the file"}, // cut short: after the last character
		{"{\"a\": 1} {}", "1:10: invalid character '{' after top-level value"},
	} {
		_, err := parseJSONObject([]byte(c.text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want it to start with %q", c.text, err, c.want)
		}
	}
}
