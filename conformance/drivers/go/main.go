// Conformance driver for the stock Go SDK (github.com/getsentry/sentry-go), unmodified.
//
//	SENTRY_TEST_DSN=http://<key>@127.0.0.1:<port>/<project> \
//	  .cache/drivers/go/conformance-go [crons|quota] <scenario> [--slug <slug>]
//
// Scenarios:
//
//	grouping         the same error twice from one code path, two messages differing in a number
//	exception-groups errors.Join of copies of one error (two, then one), then of the same two
//	                 different errors in another order and count
//	crons interval   a job on a 10-minute interval schedule (margin 2), 1.5 s long, reported ok
//	quota ratelimit  quota 3 per 4 s: 3 events, a 4th (answered 429), 3 more the SDK must hold
//	                 back, then after the announced time one more (it carries the client report)
//	quota unsupported  a transaction, a log line and an event with an attachment (tracing on)
//
// Prints one JSON line: {"sdk":{"package","version"},"scenario",…} like the other drivers.
// Exit code 0 only if the SDK reports a complete flush.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/getsentry/sentry-go"
)

// windowSeconds is the quota window the runner configures; waiting longer outlasts Retry-After.
const windowSeconds = 4

// ConformanceError is the error the grouping scenario raises, so the issue title names it.
type ConformanceError struct{ msg string }

func (e *ConformanceError) Error() string { return e.msg }

// boom always fails from the same line: identical stack traces, one issue.
func boom() error { return &ConformanceError{msg: "conformance boom"} }

func id(e *sentry.EventID) string {
	if e == nil {
		return ""
	}
	return string(*e)
}

func flush() {
	if !sentry.Flush(5 * time.Second) {
		fmt.Fprintln(os.Stderr, "flush timed out")
		os.Exit(1)
	}
}

func captureOne(text string) string {
	e := sentry.CaptureMessage(text)
	flush()
	return id(e)
}

func grouping() map[string]any {
	groups := map[string][]string{"exception": {}, "message": {}}
	for _, order := range []int{17, 42} {
		groups["exception"] = append(groups["exception"], id(sentry.CaptureException(boom())))
		flush()
		groups["message"] = append(groups["message"],
			id(sentry.CaptureMessage(fmt.Sprintf("conformance order %d failed", order))))
		flush()
	}
	return eventFields("grouping", groups)
}

// ItemError and SkuError are the two kinds of error one batch item can fail with.
type ItemError struct{ item int }

func (e *ItemError) Error() string { return fmt.Sprintf("bad item %d", e.item) }

type SkuError struct{ sku string }

func (e *SkuError) Error() string { return "unknown sku " + e.sku }

// batch fails on every item, joining their errors (the SDK sends an exception group).
func batch(items ...any) error {
	var errs []error
	for _, item := range items {
		if sku, ok := item.(string); ok {
			errs = append(errs, &SkuError{sku: sku})
		} else {
			errs = append(errs, &ItemError{item: item.(int)})
		}
	}
	return errors.Join(errs...)
}

func exceptionGroups() map[string]any {
	groups := map[string][]string{"same": {}, "mixed": {}}
	for _, c := range []struct {
		label string
		items []any
	}{
		{"same", []any{1, 2}},
		{"same", []any{3}},
		{"mixed", []any{4, "widget"}},
		{"mixed", []any{"widget", 5, 6}},
	} {
		groups[c.label] = append(groups[c.label], id(sentry.CaptureException(batch(c.items...))))
		flush()
	}
	return eventFields("exception-groups", groups)
}

func ratelimit() map[string]any {
	sentry.ConfigureScope(func(scope *sentry.Scope) { scope.SetLevel(sentry.LevelError) })
	groups := map[string][]string{"accepted": {}, "refused": {}, "held_back": {}, "after_window": {}}
	for i := 0; i < 3; i++ {
		groups["accepted"] = append(groups["accepted"], captureOne(fmt.Sprintf("ratelimit %d", i)))
	}
	groups["refused"] = append(groups["refused"], captureOne("ratelimit over quota"))
	for i := 0; i < 3; i++ {
		groups["held_back"] = append(groups["held_back"], captureOne(fmt.Sprintf("held back %d", i)))
	}
	time.Sleep(windowSeconds*time.Second + 500*time.Millisecond)
	groups["after_window"] = append(groups["after_window"], captureOne("after the window"))
	return eventFields("ratelimit", groups)
}

func unsupported() map[string]any {
	ctx := context.Background()
	tx := sentry.StartTransaction(ctx, "conformance transaction")
	tx.Finish()
	sentry.NewLogger(ctx).Info().Emit("conformance log line")
	var event *sentry.EventID
	sentry.WithScope(func(scope *sentry.Scope) {
		scope.AddAttachment(&sentry.Attachment{
			Filename:    "conformance.txt",
			ContentType: "text/plain",
			Payload:     []byte("conformance attachment"),
		})
		event = sentry.CaptureMessage("conformance event with attachment")
	})
	flush()
	return eventFields("unsupported", map[string][]string{"event": {id(event)}})
}

func interval(slug string) map[string]any {
	config := &sentry.MonitorConfig{
		Schedule:      sentry.IntervalSchedule(10, sentry.MonitorScheduleUnitMinute),
		CheckInMargin: 2,
		MaxRuntime:    5,
		Timezone:      "UTC",
	}
	started := sentry.CaptureCheckIn(&sentry.CheckIn{
		MonitorSlug: slug,
		Status:      sentry.CheckInStatusInProgress,
	}, config)
	flush()
	time.Sleep(1500 * time.Millisecond)
	sentry.CaptureCheckIn(&sentry.CheckIn{
		ID:          *started,
		MonitorSlug: slug,
		Status:      sentry.CheckInStatusOK,
		Duration:    1500 * time.Millisecond,
	}, config)
	flush()
	return map[string]any{"scenario": "interval", "slug": slug, "check_in_ids": []string{id(started)}}
}

func eventFields(scenario string, groups map[string][]string) map[string]any {
	ids := []string{}
	for _, label := range []string{"exception", "message", "event", "accepted", "refused", "held_back", "after_window", "same", "mixed"} {
		ids = append(ids, groups[label]...)
	}
	return map[string]any{"scenario": scenario, "event_ids": ids, "groups": groups}
}

func main() {
	args := os.Args[1:]
	if len(args) > 0 && (args[0] == "crons" || args[0] == "quota") {
		args = args[1:]
	}
	slug := ""
	var scenario string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--slug" && i+1 < len(args):
			slug = args[i+1]
			i++
		case scenario == "" && !strings.HasPrefix(args[i], "--"):
			scenario = args[i]
		default:
			fmt.Fprintf(os.Stderr, "unexpected argument %s\n", args[i])
			os.Exit(2)
		}
	}
	dsn := os.Getenv("SENTRY_TEST_DSN")
	if dsn == "" {
		fmt.Fprintln(os.Stderr, "SENTRY_TEST_DSN is not set")
		os.Exit(2)
	}
	if err := sentry.Init(sentry.ClientOptions{
		Dsn:         dsn,
		Release:     "conformance@1.0.0",
		Environment: "test",
		// Tracing only where the scenario needs transactions.
		EnableTracing:    scenario == "unsupported",
		TracesSampleRate: map[bool]float64{true: 1, false: 0}[scenario == "unsupported"],
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var fields map[string]any
	switch scenario {
	case "grouping":
		fields = grouping()
	case "exception-groups":
		fields = exceptionGroups()
	case "ratelimit":
		fields = ratelimit()
	case "unsupported":
		fields = unsupported()
	case "interval":
		if slug == "" {
			fmt.Fprintln(os.Stderr, "interval needs --slug")
			os.Exit(2)
		}
		fields = interval(slug)
	default:
		fmt.Fprintf(os.Stderr, "usage: conformance-go [crons|quota] <grouping|exception-groups|ratelimit|unsupported|interval> [--slug s]; got %q\n", scenario)
		os.Exit(2)
	}
	flush()
	fields["sdk"] = map[string]string{"package": "sentry-go", "version": sentry.SDKVersion}
	line, _ := json.Marshal(fields)
	fmt.Println(string(line))
}
