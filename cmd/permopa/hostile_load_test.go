package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/permopa/permopa/internal/hostile"
)

// hostileLoad sends the pathological calls of internal/hostile to a
// server from n goroutines, round robin, until stop is closed; each answer
// goes to check.
func hostileLoad(url string, n int, stop <-chan struct{}, check func(in hostile.Input, code int, d map[string]any, err error)) *sync.WaitGroup {
	inputs := hostile.Inputs()
	bodies := make([][]byte, len(inputs))
	for i, in := range inputs {
		bodies[i] = in.JSON()
	}
	client := &http.Client{Timeout: time.Minute}
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for i := g; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := i % len(bodies)
				code, d, err := postJSON(client, url+"/v1/permission/check", bodies[k])
				check(inputs[k], code, d, err)
			}
		})
	}
	return &wg
}

func postJSON(client *http.Client, url string, body []byte) (int, map[string]any, error) {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	var d map[string]any
	err = json.Unmarshal(raw, &d)
	return resp.StatusCode, d, err
}

// ordinaryCalls are the everyday calls with their expected answers, as JSON.
func ordinaryCalls() (bodies [][]byte, behavior, step []string) {
	for _, o := range hostile.Ordinary() {
		b, _ := json.Marshal(o.Call)
		bodies = append(bodies, b)
		behavior = append(behavior, o.Behavior)
		step = append(step, o.Step)
	}
	return bodies, behavior, step
}

// While pathological calls arrive (deep substitutions, 100k-part
// pipelines and chains, huge and deeply nested JSON), the server keeps
// answering ordinary checks, and answers them right; every pathological
// call is refused (a DENY with a code, or a safety ASK). The latencies
// are measured by BenchmarkServerHostileLoad, not asserted here.
func TestServerHostileLoad(t *testing.T) {
	slowOnly(t) // a load test
	// A deadline well above any ordinary check on a busy machine: this
	// test is about answers, not speed.
	srv := startPermopaServer(t, "hostile", map[string]any{"plugins": map[string]any{"permopa": map[string]any{"decision_timeout": "5s"}}}, "error")
	var hostileAnswers atomic.Int64
	var mu sync.Mutex
	var problems []string
	stop := make(chan struct{})
	wg := hostileLoad(srv.URL, 2, stop, func(in hostile.Input, code int, d map[string]any, err error) {
		hostileAnswers.Add(1)
		if err != nil || code != http.StatusOK {
			mu.Lock()
			problems = append(problems, fmt.Sprintf("%s: %d %v", in.Name, code, err))
			mu.Unlock()
			return
		}
		if p := refusalProblem(d) + stableRefusal(in, d); p != "" {
			mu.Lock()
			problems = append(problems, in.Name+": "+p)
			mu.Unlock()
		}
	})
	bodies, behavior, step := ordinaryCalls()
	client := &http.Client{Timeout: time.Minute}
	var ordinary sync.WaitGroup
	for g := range 4 {
		ordinary.Go(func() {
			for i := range 40 {
				k := (g + i) % len(bodies)
				code, d, err := postJSON(client, srv.URL+"/v1/permission/check", bodies[k])
				if err != nil || code != http.StatusOK || d["behavior"] != behavior[k] || d["step"] != step[k] {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("ordinary %s: %d %v %v", bodies[k], code, d, err))
					mu.Unlock()
				}
			}
		})
	}
	ordinary.Wait()
	close(stop)
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	if hostileAnswers.Load() == 0 {
		t.Error("no pathological call was answered")
	}
	t.Logf("%d pathological calls answered while 160 ordinary checks were", hostileAnswers.Load())
}

// BenchmarkServerHostileLoad measures the latency of ordinary checks on
// one `permopa run --server` (127.0.0.1, 4 keep-alive clients), without
// and then with 2 clients sending pathological calls without pause, and
// reports p50 and p99 of both and the loaded/unloaded p99 ratio (issue
// 12: within 2×). b.N ordinary checks per phase.
//
// Run: go test ./cmd/permopa -run '^$' -bench ServerHostileLoad -benchtime 2000x
func BenchmarkServerHostileLoad(b *testing.B) {
	srv := startPermopaServer(b, "hostile-bench", nil, "error")
	bodies, behavior, _ := ordinaryCalls()
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	measure := func() []time.Duration {
		var next atomic.Int64
		lat := make([]time.Duration, b.N)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for {
					i := int(next.Add(1)) - 1
					if i >= b.N {
						return
					}
					k := i % len(bodies)
					start := time.Now()
					code, d, err := postJSON(client, srv.URL+"/v1/permission/check", bodies[k])
					lat[i] = time.Since(start)
					if err != nil || code != http.StatusOK || d["behavior"] != behavior[k] {
						b.Errorf("ordinary check: %d %v %v", code, d, err)
					}
				}
			})
		}
		wg.Wait()
		slices.Sort(lat)
		return lat
	}
	pct := func(lat []time.Duration, p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	measure() // warm up the connections and the policy
	b.ResetTimer()
	quiet := measure()
	var refused atomic.Int64
	stop := make(chan struct{})
	wg := hostileLoad(srv.URL, 2, stop, func(_ hostile.Input, code int, _ map[string]any, err error) {
		if err == nil && code == http.StatusOK {
			refused.Add(1)
		}
	})
	loaded := measure()
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(pct(quiet, 0.5), "quiet_p50_ms")
	b.ReportMetric(pct(quiet, 0.99), "quiet_p99_ms")
	b.ReportMetric(pct(loaded, 0.5), "loaded_p50_ms")
	b.ReportMetric(pct(loaded, 0.99), "loaded_p99_ms")
	b.ReportMetric(pct(loaded, 0.99)/pct(quiet, 0.99), "p99_ratio")
	b.ReportMetric(float64(refused.Load()), "hostile_answers")
}
