package engine

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/permopa/permopa/permission"
)

// TestObserverSeesEveryDecide: the observer gets each input, in any form
// Decide takes, as plain JSON values, with the decision returned; a panic
// in it changes nothing.
func TestObserverSeesEveryDecide(t *testing.T) {
	ctx := context.Background()
	e, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"tool_name":"Bash","tool_input":{"command":"git status"},"cwd":"/tmp","permission_mode":"default","n":1}`
	var want map[string]any
	_ = json.Unmarshal([]byte(doc), &want)
	var got []any
	var decided []permission.Decision
	e.SetObserver(func(input any, d permission.Decision) {
		v, err := InputValue(input)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		got = append(got, m)
		decided = append(decided, d)
		panic("an observer that fails")
	})
	var goValue map[string]any
	_ = json.Unmarshal([]byte(doc), &goValue)
	val, _ := ast.ValueFromReader(strings.NewReader(doc))
	ds := []permission.Decision{e.DecideJSON(ctx, []byte(doc)), e.Decide(ctx, goValue), e.Decide(ctx, val)}
	if len(got) != 3 {
		t.Fatalf("the observer saw %d decisions of 3", len(got))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("input %d: observed %v, want %v", i, got[i], want)
		}
		if ds[i].Behavior != "ALLOW" || !reflect.DeepEqual(decided[i], ds[i]) {
			t.Errorf("decision %d: returned %+v, observed %+v", i, ds[i], decided[i])
		}
	}
	e.SetObserver(nil)
	if d := e.DecideJSON(ctx, []byte(doc)); d.Behavior != "ALLOW" || len(got) != 3 {
		t.Errorf("after SetObserver(nil): %v, %d observed", d.Behavior, len(got))
	}
}
