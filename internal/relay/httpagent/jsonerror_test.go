package httpagent

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The error answer is JSON: its message was written with strconv.Quote,
// whose \xff and \U000e0001 escapes are not JSON, so the client could not
// parse the answer (red team 2).
func TestWriteJSONErrorIsJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSONError(rec, http.StatusBadRequest, []byte(`7`), -32700, "Parse error: \xff near \U000E0001 \"q\" <b>")
	body := rec.Body.Bytes()
	var got struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if !json.Valid(body) || json.Unmarshal(body, &got) != nil {
		t.Fatalf("body %q is not JSON", body)
	}
	if rec.Code != http.StatusBadRequest || rec.Header().Get("Content-Type") != "application/json" || got.JSONRPC != "2.0" ||
		string(got.ID) != "7" || got.Error.Code != -32700 || got.Error.Message != "Parse error: \uFFFD near \U000E0001 \"q\" <b>" {
		t.Errorf("status %d, %+v", rec.Code, got)
	}
}
