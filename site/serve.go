package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/wattscale/wattscale/site/gen"
)

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
	o, err := sf.parse(fl, args, gen.CompressFast.Name)
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
	srv := &http.Server{Handler: gen.FileServer(dir), ReadHeaderTimeout: 10 * time.Second}
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
