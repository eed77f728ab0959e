package engine

import (
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// decodeValue reads the same Decision from OPA's value as decode from the
// Go values rego would convert it to, for well-formed decisions and for
// every malformed shape of each field.
func TestDecodeValueAsDecode(t *testing.T) {
	for _, doc := range []string{
		`{"behavior":"ALLOW","message":"m","reason":"r","step":"read_only","bypass_immune":false,"matched_rule":null,"suggested_rules":[],"tool_use_id":null}`,
		`{"behavior":"ASK","message":"m","reason":"r","step":"tool_check","check":"credential_read","bypass_immune":true,"matched_rule":null,"suggested_rules":[{"tool_name":"Read","rule_content":"/w/**","behavior":"ALLOW","source":"suggested"}],"tool_use_id":"toolu_1"}`,
		`{"behavior":"DENY","message":"m","reason":"deny rule","step":"deny_rule","bypass_immune":false,"matched_rule":{"tool_name":"Bash","rule_content":"rm:*","behavior":"DENY","source":"user","layer":"user","expires":"2030-01-01T00:00:00Z"},"suggested_rules":[],"tool_use_id":7}`,
		`{"behavior":"DENY","message":"bad","reason":"input_error","step":"error","tool_use_id":{"a":[1,2.5,"x"]}}`,
		`{"behavior":"ALLOW","matched_rule":{"tool_name":"Bash","rule_content":""},"suggested_rules":[1,{"tool_name":5,"rule_content":3}]}`,
		`{"behavior":"ALLOW","message":1,"reason":null,"step":true,"check":[],"bypass_immune":"yes","matched_rule":[],"suggested_rules":{}}`,
		`{"behavior":"MAYBE"}`, `{"behavior":1}`, `{"behavior":null}`, `{}`, `[]`, `"ALLOW"`, `null`, `12`,
	} {
		v := ast.MustParseTerm(doc).Value
		goValue, err := ast.JSON(v)
		if err != nil {
			t.Fatal(err)
		}
		if want, got := decode(goValue), decodeValue(v); !reflect.DeepEqual(want, got) {
			t.Errorf("%s:\n decode      %#v\n decodeValue %#v", doc, want, got)
		}
	}
}
