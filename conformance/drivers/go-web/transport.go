package main

// The SDK's HTTP requests as the app sees them, for the harness's evidence: when a cell fails
// because Flush timed out, the report must say whether the SDK's request was never sent, was
// sent and waited for the server's answer, or failed. sentry-go takes any http.RoundTripper
// (ClientOptions.HTTPTransport); this one changes nothing about the requests and wraps the
// transport sentry-go v0.46 builds itself when given none (NewAsyncTransport: a bare
// http.Transport with the environment's proxy and no TLS settings for a CA-less client), not a
// clone of http.DefaultTransport, whose dial, idle and keep-alive timeouts the stock SDK lacks.

import (
	"net/http"
	"net/http/httptrace"
	"sort"
	"sync"
	"time"
)

// appStart is when the app started: request times are reported relative to it.
var appStart = time.Now()

// millis is a duration in milliseconds with a tenth of a millisecond.
func millis(d time.Duration) float64 {
	return float64(d.Microseconds()/100) / 10
}

// sdkRequest is one request the SDK's transport made, filled in as it goes.
type sdkRequest struct {
	method  string
	path    string
	started time.Time
	// Set by the trace hooks under tracedTransport.mu: how long until it had a connection (and
	// whether that was a kept-alive one) and until the request was written.
	gotConn  bool
	conn     time.Duration
	reused   bool
	written  bool
	wrote    time.Duration
	writeErr string
}

// tracedTransport reports every SDK request as an `sdk_request` line when its answer's headers
// (or an error) came back, and those still waiting when asked (pending).
type tracedTransport struct {
	next    http.RoundTripper
	mu      sync.Mutex
	seq     int
	pending map[int]*sdkRequest
}

func newTracedTransport() *tracedTransport {
	return &tracedTransport{
		next:    &http.Transport{Proxy: http.ProxyFromEnvironment},
		pending: map[int]*sdkRequest{},
	}
}

// fields is the request's line so far, under t.mu.
func (r *sdkRequest) fields(now time.Time) map[string]any {
	line := map[string]any{
		"method":   r.method,
		"path":     r.path,
		"at":       r.started.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		"start_ms": millis(r.started.Sub(appStart)),
		"ms":       millis(now.Sub(r.started)),
	}
	if r.gotConn {
		line["conn_ms"] = millis(r.conn)
		line["reused"] = r.reused
	}
	if r.written {
		line["wrote_ms"] = millis(r.wrote)
	}
	if r.writeErr != "" {
		line["write_error"] = r.writeErr
	}
	return line
}

func (t *tracedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := &sdkRequest{method: req.Method, path: req.URL.Path, started: time.Now()}
	t.mu.Lock()
	t.seq++
	id := t.seq
	t.pending[id] = r
	t.mu.Unlock()
	trace := &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			t.mu.Lock()
			defer t.mu.Unlock()
			r.gotConn, r.conn, r.reused = true, time.Since(r.started), info.Reused
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			t.mu.Lock()
			defer t.mu.Unlock()
			r.written, r.wrote = true, time.Since(r.started)
			if info.Err != nil {
				r.writeErr = info.Err.Error()
			}
		},
	}
	res, err := t.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	t.mu.Lock()
	delete(t.pending, id)
	line := r.fields(time.Now())
	t.mu.Unlock()
	if err != nil {
		line["error"] = err.Error()
	} else {
		line["status"] = res.StatusCode
	}
	say(map[string]any{"sdk_request": line})
	return res, err
}

// reportPending says an `sdk_request` line with `"pending": true` for each request still
// waiting (called before the app exits: a request that never ended would otherwise be silent).
func (t *tracedTransport) reportPending() {
	t.mu.Lock()
	ids := make([]int, 0, len(t.pending))
	for id := range t.pending {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	now := time.Now()
	lines := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		line := t.pending[id].fields(now)
		line["pending"] = true
		lines = append(lines, line)
	}
	t.mu.Unlock()
	for _, line := range lines {
		say(map[string]any{"sdk_request": line})
	}
}
