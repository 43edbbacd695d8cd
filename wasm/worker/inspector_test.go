package main

// A minimal client of workerd's inspector (the Chrome DevTools protocol over
// a WebSocket), enough to read the isolate's V8 heap after a full garbage
// collection. workerd serves it with --inspector-addr, one endpoint per
// service: ws://ADDR/main.

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// inspector is a connection to one isolate's inspector.
type inspector struct {
	conn net.Conn
	r    *bufio.Reader
	id   int
}

// dialInspector opens ws://addr/service.
func dialInspector(addr, service string) (*inspector, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		service, addr, base64.StdEncoding.EncodeToString(key))
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if res.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, fmt.Errorf("inspector: %s", res.Status)
	}
	return &inspector{conn: conn, r: r}, nil
}

func (c *inspector) Close() error { return c.conn.Close() }

// call sends a command and returns its result, skipping the events that
// come before it (heap snapshot chunks, for one).
func (c *inspector) call(method string, params any) (json.RawMessage, error) {
	c.id++
	msg, err := json.Marshal(map[string]any{"id": c.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	c.conn.SetDeadline(time.Now().Add(60 * time.Second))
	if err := c.writeText(msg); err != nil {
		return nil, err
	}
	for {
		b, err := c.readMessage()
		if err != nil {
			return nil, err
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &m) != nil || m.ID != c.id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

// writeText sends one masked text frame, as a client must.
func (c *inspector) writeText(p []byte) error {
	hdr := []byte{0x81}
	switch n := len(p); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	hdr = append(hdr, mask...)
	out := make([]byte, len(p))
	for i := range p {
		out[i] = p[i] ^ mask[i%4]
	}
	_, err := c.conn.Write(append(hdr, out...))
	return err
}

// readMessage reads one whole message (joining continuation frames); pings
// are answered, other control frames skipped.
func (c *inspector) readMessage() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(c.r, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(c.r, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		if n > 1<<30 {
			return nil, fmt.Errorf("inspector: frame of %d bytes", n)
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(c.r, p); err != nil {
			return nil, err
		}
		switch op {
		case 0x8:
			return nil, io.EOF
		case 0x9: // ping
			continue
		case 0xa:
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}

// heapAfterGC is the isolate's V8 heap after a full garbage collection:
// the bytes in use and the bytes V8 holds for it (used plus free pages
// it keeps). HeapProfiler.collectGarbage does not answer in the pinned
// workerd, so the collection is forced by taking a heap snapshot (which V8
// precedes with one), whose chunks are read and dropped.
func heapAfterGC(addr string) (used, total int64, err error) {
	c, err := dialInspector(addr, "main")
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	if _, err := c.call("HeapProfiler.takeHeapSnapshot", map[string]any{"reportProgress": false}); err != nil {
		return 0, 0, err
	}
	res, err := c.call("Runtime.getHeapUsage", map[string]any{})
	if err != nil {
		return 0, 0, err
	}
	var u struct {
		UsedSize  float64 `json:"usedSize"`
		TotalSize float64 `json:"totalSize"`
	}
	if err := json.Unmarshal(res, &u); err != nil {
		return 0, 0, err
	}
	return int64(u.UsedSize), int64(u.TotalSize), nil
}
