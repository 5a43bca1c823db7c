// A small Go shop with the stock sentry-go web integrations, started by the go-http, go-gin and
// go-echo drivers: `conformance-go-web http` serves net/http (Go 1.22 patterns) through
// sentryhttp, `conformance-go-web gin` serves Gin through sentrygin, `conformance-go-web echo`
// serves Echo 5 through sentryecho. A panic in the /orders/{id} route is
// the unhandled error; each framework's own recovery answers 500 after the SDK re-panics, as
// the integrations' docs set it up. Speaks the protocol of ../web-app.mjs on its standard
// streams (`listening`, `sent`, `flushed` lines; `flush` read from stdin), plus an
// `sdk_request` line per HTTP request of the SDK (transport.go) and `flush_ms` on `flushed`.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/getsentry/sentry-go"
	sentryecho "github.com/getsentry/sentry-go/echo"
	sentrygin "github.com/getsentry/sentry-go/gin"
	sentryhttp "github.com/getsentry/sentry-go/http"
	"github.com/gin-gonic/gin"
	"github.com/labstack/echo/v5"
	echomiddleware "github.com/labstack/echo/v5/middleware"
)

var out sync.Mutex

func say(message map[string]any) {
	line, err := json.Marshal(message)
	if err != nil {
		log.Fatal(err)
	}
	out.Lock()
	defer out.Unlock()
	fmt.Fprintln(os.Stdout, string(line))
}

// loadOrder is the route's work: a breadcrumb of what it does, then the panic it does not handle.
func loadOrder(hub *sentry.Hub, id string) {
	hub.AddBreadcrumb(&sentry.Breadcrumb{Category: "shop", Message: "loading order " + id, Level: sentry.LevelInfo}, nil)
	panic(fmt.Errorf("order %s could not be loaded", id))
}

// authenticate is what an auth layer does: the signed-in user goes on the request's hub.
func authenticate(hub *sentry.Hub, r *http.Request) {
	if hub != nil {
		hub.Scope().SetUser(sentry.User{ID: r.Header.Get("X-Conformance-User")})
	}
}

func netHTTP() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("GET /orders/{id}", func(_ http.ResponseWriter, r *http.Request) {
		loadOrder(sentry.GetHubFromContext(r.Context()), r.PathValue("id"))
	})
	withUser := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authenticate(sentry.GetHubFromContext(r.Context()), r)
		mux.ServeHTTP(w, r)
	})
	sentryHandler := sentryhttp.New(sentryhttp.Options{Repanic: true}).Handle(withUser)
	// The app's own recovery outside Sentry's: a 500 instead of a dropped connection.
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if recover() != nil {
				w.WriteHeader(http.StatusInternalServerError)
			}
		}()
		sentryHandler.ServeHTTP(w, r)
	})
}

func ginApp() http.Handler {
	gin.SetMode(gin.ReleaseMode)
	app := gin.New()
	app.Use(gin.CustomRecovery(func(c *gin.Context, _ any) { c.AbortWithStatus(http.StatusInternalServerError) }))
	app.Use(sentrygin.New(sentrygin.Options{Repanic: true}))
	app.Use(func(c *gin.Context) {
		authenticate(sentrygin.GetHubFromContext(c), c.Request)
		c.Next()
	})
	app.GET("/health", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	app.GET("/orders/:id", func(c *gin.Context) { loadOrder(sentrygin.GetHubFromContext(c), c.Param("id")) })
	return app
}

// echoApp is the shop on Echo 5: Echo's Recover outside sentryecho, as Echo's users set it up.
func echoApp() http.Handler {
	app := echo.New()
	app.Use(echomiddleware.Recover())
	app.Use(sentryecho.New(sentryecho.Options{Repanic: true}))
	app.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			authenticate(sentryecho.GetHubFromContext(c), c.Request())
			return next(c)
		}
	})
	app.GET("/health", func(c *echo.Context) error { return c.String(http.StatusOK, "ok") })
	app.GET("/orders/:id", func(c *echo.Context) error {
		loadOrder(sentryecho.GetHubFromContext(c), c.Param("id"))
		return nil
	})
	return app
}

func main() {
	apps := map[string]func() http.Handler{"http": netHTTP, "gin": ginApp, "echo": echoApp}
	if len(os.Args) != 2 || apps[os.Args[1]] == nil {
		log.Fatal("usage: conformance-go-web http|gin|echo")
	}
	transport := newTracedTransport()
	err := sentry.Init(sentry.ClientOptions{
		Dsn:            os.Getenv("SENTRY_TEST_DSN"),
		HTTPTransport:  transport,
		Release:        os.Getenv("CONFORMANCE_RELEASE"),
		Environment:    "test",
		SendDefaultPII: true,
		// Only tells the harness which event ids the SDK sends; the event is returned unchanged.
		BeforeSend: func(event *sentry.Event, _ *sentry.EventHint) *sentry.Event {
			say(map[string]any{"sent": string(event.EventID)})
			return event
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	handler := apps[os.Args[1]]()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = http.Serve(listener, handler) }()
	say(map[string]any{"listening": listener.Addr().(*net.TCPAddr).Port})
	input := bufio.NewScanner(os.Stdin)
	for input.Scan() {
		if strings.TrimSpace(input.Text()) == "flush" {
			break
		}
	}
	flushStart := time.Now()
	flushed := sentry.Flush(5 * time.Second)
	flushMs := millis(time.Since(flushStart))
	transport.reportPending()
	say(map[string]any{
		"flushed":  flushed,
		"flush_ms": flushMs,
		"sdk":      map[string]string{"package": "sentry-go", "version": sentry.SDKVersion},
	})
	os.Exit(0)
}
