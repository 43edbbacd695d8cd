package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestWorkerdShortBody: a POST whose body ends before its Content-Length
// (the client stops sending) is answered 400 on (body), not 500.
func TestWorkerdShortBody(t *testing.T) {
	base := startWorkerd(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model": {"preset": "bert-base"}}`
	fmt.Fprintf(conn, "POST /api/v1/estimate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+100, body)
	conn.(*net.TCPConn).CloseWrite()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a body shorter than its Content-Length: %v", err)
	}
	defer res.Body.Close()
	var e struct {
		Error struct{ Field, Message string }
	}
	json.NewDecoder(res.Body).Decode(&e)
	t.Logf("%d %+v", res.StatusCode, e)
	if res.StatusCode != http.StatusBadRequest || e.Error.Field != "(body)" {
		t.Errorf("a body %d bytes short of its Content-Length: %d %+v, want 400 on (body)", 100, res.StatusCode, e)
	}
}
