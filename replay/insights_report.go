package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteInsightsJSON writes the insights as one JSON document.
func WriteInsightsJSON(w io.Writer, in *Insights) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(in)
}

// top is the first n rows (all when n <= 0).
func top[T any](rows []T, n int) []T {
	if n > 0 && len(rows) > n {
		return rows[:n]
	}
	return rows
}

// WriteInsightsText writes the readable insights report, n rows per table.
func WriteInsightsText(w io.Writer, in *Insights, n int) error {
	var b strings.Builder
	span := ""
	if !in.From.IsZero() {
		span = fmt.Sprintf(", %s to %s", in.From.UTC().Format("2006-01-02 15:04"), in.To.UTC().Format("2006-01-02 15:04 UTC"))
	}
	fmt.Fprintf(&b, "%d calls from %s%s: %d ALLOW, %d ASK, %d DENY.\n", in.Calls, plural(len(in.Files), "log"), span,
		in.Behaviors["ALLOW"], in.Behaviors["ASK"], in.Behaviors["DENY"])
	if in.TimedOut > 0 {
		fmt.Fprintf(&b, "%d calls had no decision within the deadline (--timeout) and are in no table.\n", in.TimedOut)
	}
	if in.Undecided > 0 {
		fmt.Fprintf(&b, "%d calls had no decision (no recorded one, and no policy to decide them, or one that read a field the log erased).\n", in.Undecided)
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	breakdown := func(title string, rows []Row) {
		fmt.Fprintf(tw, "\n%s\tASK\tDENY\tALLOW\t\n", title)
		shown := 0
		for _, r := range top(rows, n) {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t\n", Short(r.Key, 90), r.Ask, r.Deny, r.Allow)
			shown++
		}
		if len(rows) > shown {
			fmt.Fprintf(tw, "(%d more)\t\t\t\t\n", len(rows)-shown)
		}
	}
	fmt.Fprintln(&b, "\nWHERE THE PROMPTS AND DENIALS COME FROM")
	breakdown("TOOL", in.ByTool)
	breakdown("PROGRAM (Bash commands)", in.ByProgram)
	breakdown("STEP AND RULE OR CHECK", in.ByRule)
	breakdown("MODE", in.ByMode)
	breakdown("PROJECT (cwd)", in.ByProject)
	tw.Flush()
	out := b.String()

	var s strings.Builder
	fmt.Fprintln(&s, "\nRULES THAT WOULD HAVE REMOVED THE MOST ASKS")
	if len(in.Suggestions) == 0 {
		fmt.Fprintln(&s, "  none: no ASK suggested a rule")
	}
	if in.AsksWithoutRule > 0 {
		fmt.Fprintf(&s, "  (%s that no rule the policy suggests would remove: it no longer asks, suggests nothing, or an ask rule or safety check would still ask)\n", plural(in.AsksWithoutRule, "ASK"))
	}
	if in.Unchecked > 0 {
		fmt.Fprintf(&s, "  truncated: %s not checked for a rule, from %s on: the logs hold more than %d distinct (rules, project) pairs, the most insights checks\n", plural(in.Unchecked, "ASK"), Printable(in.UncheckedFrom), in.UncheckedLimit)
	}
	for i, sg := range top(in.Suggestions, n) {
		fmt.Fprintf(&s, "%3d. %s: %s; risk %s (%s)\n", i+1, Printable(strings.Join(sg.Rules, " + ")), plural(sg.Calls, "ASK"), sg.Level, riskText(sg.Risk, sg.Calls))
		if sg.Broad != "" {
			fmt.Fprintf(&s, "     BROAD: %s\n", Printable(sg.Broad))
		}
		fmt.Fprintf(&s, "     %s\n", Printable(sg.Command))
		fmt.Fprintf(&s, "     e.g. %s\n", examples(sg.Examples))
	}
	fmt.Fprintln(&s, "\nALLOWS BY BROAD RULES")
	if len(in.BroadAllows) == 0 {
		fmt.Fprintln(&s, "  none")
	}
	for _, ba := range top(in.BroadAllows, n) {
		layer := ""
		if ba.Layer != "" {
			layer = " (" + Printable(ba.Layer) + ")"
		}
		fmt.Fprintf(&s, "  %s%s: %s; %s; risk %s (%s)\n", Printable(ba.Rule), layer, plural(ba.Calls, "call"), ba.Why, ba.Level, riskText(ba.Risk, ba.Calls))
		fmt.Fprintf(&s, "     e.g. %s\n", examples(ba.Examples))
	}
	if in.Skipped > 0 {
		fmt.Fprintf(&s, "\n%d log values were not calls and were skipped.\n", in.Skipped)
	}
	if in.Errors > 0 {
		fmt.Fprintf(&s, "%d log values could not be read (listed on stderr).\n", in.Errors)
	}
	_, err := io.WriteString(w, out+s.String())
	return err
}

func riskText(r Risk, calls int) string {
	parts := []string{fmt.Sprintf("%d of %d not read-only", r.NotReadOnly, calls)}
	if r.Dangerous > 0 {
		parts = append(parts, fmt.Sprintf("%d touched dangerous paths such as %s", r.Dangerous, Printable(strings.Join(r.DangerousPaths, ", "))))
	}
	if r.RunsUnknown > 0 {
		parts = append(parts, fmt.Sprintf("%d ran code permopa cannot see", r.RunsUnknown))
	}
	if r.ErasedRead > 0 {
		parts = append(parts, fmt.Sprintf("%d decided by fields the log erased", r.ErasedRead))
	}
	return strings.Join(parts, ", ")
}

func examples(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = Short(x, 80)
	}
	return strings.Join(out, " | ")
}
