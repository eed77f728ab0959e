package opaplugin

import (
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/logging"
	testlog "github.com/open-policy-agent/opa/v1/logging/test"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/plugins/logs"

	"github.com/permopa/permopa/adapter/hookproto"
)

// Each call the hook route decides is a decision log event, as a check's
// is: the permopa input (the payload's fields a hook passes on), the
// decision as the result, a decision_id of its own.
func TestHookRouteDecisionLog(t *testing.T) {
	t.Parallel()
	console := testlog.New()
	console.SetLevel(logging.Info)
	dir := settingsDir(t, "permissions:\n  deny: [\"Bash(rm -rf:*)\"]\n")
	h := start(t, newBundleServer(t), noWait(layersConfig(dir)), func(m *plugins.Manager) {
		plugins.ConsoleLogger(console)(m)
		cfg, err := logs.NewConfigBuilder().WithBytes([]byte(`{"console": true}`)).WithServices(m.Services()).Parse()
		if err != nil {
			t.Fatal(err)
		}
		m.Register(logs.Name, logs.New(cfg, m))
	})
	s := h.serve(t, serveOpts{})
	_, got := s.hookPost(t, req{body: hookPayload(hookproto.EventPreToolUse, "default", "rm -rf build")})
	if verdict(t, got) != "deny" {
		t.Fatalf("answer: %s", got)
	}
	var events []map[string]any
	for _, e := range console.Entries() {
		if e.Message == "Decision Log" {
			events = append(events, e.Fields)
		}
	}
	if len(events) != 1 {
		t.Fatalf("%d decision log events: %v", len(events), console.Entries())
	}
	e := events[0]
	in, _ := e["input"].(map[string]any)
	res, _ := e["result"].(map[string]any)
	if in["tool_name"] != "Bash" || in["transcript_path"] != "/tmp/t.jsonl" || in["hook_event_name"] != "PreToolUse" ||
		res["behavior"] != "DENY" || !strings.Contains(res["message"].(string), "rm -rf") || e["decision_id"] == "" || e["decision_id"] != res["decision_id"] {
		t.Errorf("event: %v", e)
	}
}
