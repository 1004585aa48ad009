package e2e

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// h2MCP is a minimal HTTP/2 (TLS, ALPN h2) MCP endpoint written with raw
// frames, so it can end a stream in ways net/http's HTTP/2 server cannot
// be made to from a handler: RST_STREAM with a chosen code, or GOAWAY.
type h2MCP struct {
	ln       net.Listener
	certFile string
	calls    atomic.Int32 // tools/call requests received
	executed atomic.Int32 // bookings written
	// end: how tools/call number n ends after it executed — "" answers
	// "booked", "rst:CODE" resets the stream with the error code, "goaway"
	// sends GOAWAY naming an earlier stream as the last one processed.
	end func(n int) string
}

func newH2MCP(t *testing.T) *h2MCP {
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
	s := &h2MCP{certFile: filepath.Join(t.TempDir(), "ca.pem")}
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

func (s *h2MCP) url() string { return "https://" + s.ln.Addr().String() + "/mcp" }

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

func (s *h2MCP) serveConn(nc net.Conn) {
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

func (s *h2MCP) handle(c *h2conn, stream uint32, body []byte) {
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
		end := ""
		if s.end != nil {
			end = s.end(n)
		}
		switch {
		case strings.HasPrefix(end, "rst:"):
			code, _ := strconv.Atoi(end[len("rst:"):])
			c.frame(3, 0, stream, binary.BigEndian.AppendUint32(nil, uint32(code))) // RST_STREAM
			return
		case end == "goaway":
			payload := binary.BigEndian.AppendUint32(nil, stream-2)     // last stream id
			c.frame(7, 0, 0, binary.BigEndian.AppendUint32(payload, 0)) // NO_ERROR
			return
		}
		out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
	default:
		out = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}
	c.respond(stream, "200", []byte(out))
}

// TestHTTPUpstreamH2NoReplay (red team 1, finding 2): over an https
// upstream that speaks HTTP/2, the upstream executes the agent's
// create_booking, then resets the stream with PROTOCOL_ERROR or
// REFUSED_STREAM, or sends GOAWAY naming an earlier stream as the last it
// processed. net/http's HTTP/2 client re-sends a request after each of
// these when it can rewind the body — which http.NewRequest with a
// bytes.Reader always can — with no header needed: the upstream wrote the
// booking twice and the judge, seeing one attempt answered "booked", said
// PASS. Now the POST is sent once and the attempt is unknown (a server
// that says it did not process a stream is not taken at its word).
func TestHTTPUpstreamH2NoReplay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	for _, end := range []string{"rst:1", "rst:7", "goaway"} {
		t.Run(end, func(t *testing.T) {
			s := newH2MCP(t)
			s.end = func(n int) string {
				if n == 1 {
					return end
				}
				return ""
			}
			report := filepath.Join(t.TempDir(), "report.json")
			p := startProxy(t, []string{"SSL_CERT_FILE=" + s.certFile}, "--upstream-url", s.url(), "--audit-tools", "off", "--report-file", report)
			p.initialize()
			a := requestWithin(t, p, 20*time.Second, "10", "tools/call", bookingCall)
			if code, _ := p.closeAndWait(); code != 0 {
				t.Fatalf("exit %d\n%s", code, p.stderr.String())
			}
			r, _ := readUpstreamReport(t, report)
			if n := s.calls.Load(); n != 1 {
				t.Errorf("the upstream got the agent's one tools/call %d times and executed it %d times", n, s.executed.Load())
			}
			if !strings.Contains(string(a), "failed before an answer") || strings.Contains(string(a), "booked") {
				t.Errorf("answer %s", a)
			}
			if ops := r.Report.Operations; r.Verdict != "NOT_TESTED" || len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" {
				t.Errorf("verdict %s, operations %+v\nstderr:\n%s", r.Verdict, ops, p.stderr.String())
			}
		})
	}
}
