package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

// siteTypes are the media types the site needs, set explicitly so that
// they do not depend on the system's MIME tables (.wasm must be
// application/wasm for streaming compilation).
var siteTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".wasm": "application/wasm",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".csv":  "text/csv; charset=utf-8",
}

// fileServer serves dir with the site's media types and no caching (a
// rebuild shows at the next reload).
func fileServer(dir string) http.Handler {
	fs := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if t, ok := siteTypes[strings.ToLower(filepath.Ext(r.URL.Path))]; ok {
			w.Header().Set("Content-Type", t)
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		fs.ServeHTTP(w, r)
	})
}

func init() {
	for ext, t := range siteTypes {
		mime.AddExtensionType(ext, t)
	}
}

// listen listens on addr, or on a free port of the same host when addr's
// port is taken.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	host, _, splitErr := net.SplitHostPort(addr)
	if splitErr != nil {
		return nil, err
	}
	ln, err2 := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err2 != nil {
		return nil, fmt.Errorf("%v; and no free port: %v", err, err2)
	}
	return ln, nil
}

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("serve", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:8080", "address to listen on (a free port is taken when this one is busy)")
	out := fl.String("o", "", "build into this folder (default: a temporary folder, removed on exit)")
	var sf siteFlags
	sf.register(fl)
	if err := fl.Parse(args); err != nil {
		return errUsage
	}
	if err := noArgs(fl); err != nil {
		return err
	}
	o, err := sf.options()
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		tmp, err := os.MkdirTemp("", "wattscale-site-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return serve(ctx, o, dir, *addr, stdout, stderr)
}

// serve builds the site into dir, serves it on addr (or a free port) and
// prints the URL on stdout, until ctx is done.
func serve(ctx context.Context, o buildOptions, dir, addr string, stdout, stderr io.Writer) error {
	if err := buildInto(o, dir, stderr); err != nil {
		return err
	}
	ln, err := listen(addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: fileServer(dir), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "serving http://%s/\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	case <-ctx.Done():
		fmt.Fprintln(stderr, "stopping")
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}
	return nil
}
