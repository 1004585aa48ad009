package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// red1H2 is a minimal HTTP/2 (TLS, ALPN h2) MCP endpoint written with raw
// frames, so it can answer a stream with RST_STREAM(PROTOCOL_ERROR),
// which net/http/internal HTTP/2 cannot be made to send from a handler.
type red1H2 struct {
	ln       net.Listener
	certFile string
	calls    atomic.Int32 // tools/call requests received
	executed atomic.Int32 // bookings written
	// reset: answer tools/call number n with RST_STREAM(PROTOCOL_ERROR)
	// after executing it.
	reset func(n int) bool
}

func newRed1H2(t *testing.T) *red1H2 {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	s := &red1H2{certFile: filepath.Join(t.TempDir(), "ca.pem")}
	if err := os.WriteFile(s.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, NextProtos: []string{"h2"}}
	s.ln, err = tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.ln.Close() })
	go func() {
		for {
			c, err := s.ln.Accept()
			if err != nil {
				return
			}
			go s.serveConn(c)
		}
	}()
	return s
}

func (s *red1H2) url() string { return "https://" + s.ln.Addr().String() + "/mcp" }

type h2conn struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (c *h2conn) frame(typ, flags byte, stream uint32, payload []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var h [9]byte
	h[0], h[1], h[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
	h[3], h[4] = typ, flags
	binary.BigEndian.PutUint32(h[5:], stream&0x7fffffff)
	c.w.Write(h[:])
	c.w.Write(payload)
	c.w.Flush()
}

// hpackLiteral is a header field "literal without indexing, new name"
// (no Huffman; short strings).
func hpackLiteral(dst []byte, name, value string) []byte {
	dst = append(dst, 0x00, byte(len(name)))
	dst = append(dst, name...)
	dst = append(dst, byte(len(value)))
	return append(dst, value...)
}

func (c *h2conn) respond(stream uint32, status string, body []byte) {
	hdr := append([]byte{0x08, byte(len(status))}, status...)
	hdr = hpackLiteral(hdr, "content-type", "application/json")
	if body == nil {
		c.frame(1, 0x4|0x1, stream, hdr) // END_HEADERS|END_STREAM
		return
	}
	c.frame(1, 0x4, stream, hdr)
	c.frame(0, 0x1, stream, body)
}

func (s *red1H2) serveConn(nc net.Conn) {
	defer nc.Close()
	r := bufio.NewReader(nc)
	preface := make([]byte, 24)
	if _, err := io.ReadFull(r, preface); err != nil {
		return
	}
	c := &h2conn{w: bufio.NewWriter(nc)}
	c.frame(4, 0, 0, nil) // SETTINGS
	bodies := map[uint32][]byte{}
	for {
		var h [9]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return
		}
		n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		typ, flags := h[3], h[4]
		stream := binary.BigEndian.Uint32(h[5:]) & 0x7fffffff
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		switch typ {
		case 4: // SETTINGS
			if flags&0x1 == 0 {
				c.frame(4, 0x1, 0, nil)
			}
		case 6: // PING
			if flags&0x1 == 0 {
				c.frame(6, 0x1, 0, payload)
			}
		case 7: // GOAWAY
			return
		case 1: // HEADERS
			bodies[stream] = []byte{}
			if flags&0x1 != 0 { // no body: GET, DELETE
				c.respond(stream, "405", nil)
				delete(bodies, stream)
			}
		case 0: // DATA
			if flags&0x8 != 0 && len(payload) > 0 { // PADDED
				payload = payload[1 : len(payload)-int(payload[0])]
			}
			bodies[stream] = append(bodies[stream], payload...)
			if len(payload) > 0 {
				inc := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
				c.frame(8, 0, 0, inc)
				c.frame(8, 0, stream, inc)
			}
			if flags&0x1 != 0 {
				s.handle(c, stream, bodies[stream])
				delete(bodies, stream)
			}
		}
	}
}

func (s *red1H2) handle(c *h2conn, stream uint32, body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	id := string(m.ID)
	if m.ID == nil {
		c.respond(stream, "202", nil)
		return
	}
	var out string
	switch m.Method {
	case "initialize":
		out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"h2","version":"1"}}}`, id)
	case "tools/list":
		out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"create_booking","description":"Creates a booking.","inputSchema":{"type":"object"}}]}}`, id)
	case "tools/call":
		n := int(s.calls.Add(1))
		s.executed.Add(1) // the booking is written
		if s.reset != nil && s.reset(n) {
			c.frame(3, 0, stream, []byte{0, 0, 0, 1}) // RST_STREAM PROTOCOL_ERROR
			return
		}
		out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
	default:
		out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}
	c.respond(stream, "200", []byte(out))
}

// TestRed1H2ResetReplaysPost: over an https upstream that speaks HTTP/2
// (any modern server), the upstream executes the agent's create_booking
// and resets the stream with PROTOCOL_ERROR. net/http's HTTP/2 client
// retries a request after a PROTOCOL_ERROR reset from the peer
// (golang/go#47635) when it can rewind the body — which http.NewRequest
// with a bytes.Reader always can — so it re-sends the POST by itself,
// without any header: the upstream writes the booking twice, the judge
// sees one attempt and one "booked": PASS. SPEC §17.5: expected one POST
// per tools/call; a stream reset after the request was sent is an
// unknown outcome.
func TestRed1H2ResetReplaysPost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	s := newRed1H2(t)
	s.reset = func(n int) bool { return n == 1 }
	report := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, []string{"SSL_CERT_FILE=" + s.certFile}, "--upstream-url", s.url(), "--audit-tools", "off", "--report-file", report)
	p.initialize()
	a := requestWithin(t, p, 20*time.Second, "10", "tools/call", bookingCall)
	t.Logf("answer: %s", a)
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	r, _ := readUpstreamReport(t, report)
	if n := s.calls.Load(); n != 1 {
		t.Errorf("the upstream got the agent's one tools/call %d times and executed it %d times", n, s.executed.Load())
	}
	if r.Verdict == "PASS" && s.executed.Load() > 1 {
		t.Errorf("wrong PASS: operations %+v, the upstream executed %d times\nstderr:\n%s", r.Report.Operations, s.executed.Load(), p.stderr.String())
	}
}
