package bulk_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tlsbench/tlsbench/bulk"
)

// TestHTTPForms: what the client writes, the server parses back.
func TestHTTPForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		head []byte
		want bulk.HTTPRequest
	}{
		{bulk.DownloadRequest("localhost:443", 1<<30, 77, 0), bulk.HTTPRequest{Kind: bulk.HTTPDownload, Method: "GET", Bytes: 1 << 30, Phase: 77, Buffer: bulk.DefaultHTTPBuffer, KeepAlive: true}},
		{bulk.DownloadRequest("h", bulk.MaxHTTPBody, 0, 4096), bulk.HTTPRequest{Kind: bulk.HTTPDownload, Method: "GET", Bytes: bulk.MaxHTTPBody, Buffer: 4096, KeepAlive: true}},
		{bulk.UploadRequest("h", 5, bulk.PatternPeriod-1, bulk.MaxBuffer), bulk.HTTPRequest{Kind: bulk.HTTPUpload, Method: "POST", Bytes: 5, Phase: bulk.PatternPeriod - 1, Buffer: bulk.MaxBuffer, KeepAlive: true}},
		{bulk.SourceRequest("h", 2, 0), bulk.HTTPRequest{Kind: bulk.HTTPSource, Method: "GET", Source: 2, Buffer: bulk.DefaultHTTPBuffer, KeepAlive: true}},
		{[]byte("GET /tlsbench/bulk?bytes=1 HTTP/1.0\r\n\r\n"), bulk.HTTPRequest{Kind: bulk.HTTPDownload, Method: "GET", Bytes: 1, Buffer: bulk.DefaultHTTPBuffer}},
		{[]byte("GET /tlsbench/bulk?bytes=1&x=y HTTP/1.1\r\nConnection: close\r\n\r\n"), bulk.HTTPRequest{Kind: bulk.HTTPDownload, Method: "GET", Bytes: 1, Buffer: bulk.DefaultHTTPBuffer}},
		{[]byte("HEAD / HTTP/1.1\n\n"), bulk.HTTPRequest{Kind: bulk.HTTPOther, Method: "HEAD", Target: "/", Buffer: bulk.DefaultHTTPBuffer, KeepAlive: true}},
	} {
		got, err := bulk.ParseHTTPRequest(tc.head)
		tc.want.Target = got.Target // checked through the other fields
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.head, got, err, tc.want)
		}
	}
}

// TestHTTPRequestRefusals: each bad request gets its status and a reason.
func TestHTTPRequestRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		head   string
		status int
		reason string
	}{
		{"GET /tlsbench/bulk HTTP/1.1\r\n\r\n", 400, "bytes=N"},
		{"GET /tlsbench/bulk?bytes=0 HTTP/1.1\r\n\r\n", 400, "bytes=N"},
		{"GET /tlsbench/bulk?bytes=1099511627777 HTTP/1.1\r\n\r\n", 400, "bytes=N"},
		{"GET /tlsbench/bulk?bytes=-1 HTTP/1.1\r\n\r\n", 400, "not a number"},
		{"GET /tlsbench/bulk?bytes=+1 HTTP/1.1\r\n\r\n", 400, "not a number"},
		{"GET /tlsbench/bulk?bytes=1&bytes=2 HTTP/1.1\r\n\r\n", 400, "given twice"},
		{"GET /tlsbench/bulk?bytes=1&buffer=0 HTTP/1.1\r\n\r\n", 400, "buffer=0"},
		{"GET /tlsbench/bulk?bytes=1&buffer=1048577 HTTP/1.1\r\n\r\n", 400, "buffer=1048577"},
		{"GET /tlsbench/bulk?bytes=1 HTTP/1.1\r\nContent-Length: 3\r\n\r\n", 400, "no body"},
		{"POST /tlsbench/bulk HTTP/1.1\r\n\r\n", 411, "Content-Length"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 411, "chunked"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 413, "upload of 0"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nContent-Length: 1099511627777\r\n\r\n", 413, "upload of"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", 400, "Content-Length"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nContent-Length: 0x5\r\n\r\n", 400, "Content-Length"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nContent-Length: 5\r\n folded\r\n\r\n", 400, "folded"},
		{"POST /tlsbench/bulk HTTP/1.1\r\nno colon\r\n\r\n", 400, "malformed header"},
		{"PUT /tlsbench/bulk HTTP/1.1\r\n\r\n", 405, "PUT"},
		{"GET /tlsbench/source/0 HTTP/1.1\r\n\r\n", 404, "file source"},
		{"GET /tlsbench/source/+1 HTTP/1.1\r\n\r\n", 404, "file source"},
		{"GET /tlsbench/source/99999999999999999999 HTTP/1.1\r\n\r\n", 404, "file source"},
		{"POST /tlsbench/source/1 HTTP/1.1\r\n\r\n", 405, "only GET"},
		{"GET /tlsbench/other HTTP/1.1\r\n\r\n", 404, "no such path"},
		{"GET /tlsbench/bulk HTTP/2.0\r\n\r\n", 400, "request line"},
		{"GET  /tlsbench/bulk HTTP/1.1\r\n\r\n", 400, "request line"},
		{"GET /tlsbench/bulk?bytes=1 HTTP/1.1\r\n" + strings.Repeat("a: b\r\n", 2000) + "\r\n", 431, "over"},
	} {
		_, err := bulk.ParseHTTPRequest([]byte(tc.head))
		var he *bulk.HTTPError
		if !errors.As(err, &he) || he.Status != tc.status || !strings.Contains(he.Reason, tc.reason) {
			t.Errorf("%.60q: %v; want %d %q", tc.head, err, tc.status, tc.reason)
		}
	}
}

// TestHTTPResponse: heads the server writes parse back; what a proxy adds
// (its error header, chunking, close) is seen.
func TestHTTPResponse(t *testing.T) {
	t.Parallel()
	r, err := bulk.ParseHTTPResponse(bulk.ResponseHead(422, 10, false, "byte 5 is 0x01,\r\nwant 0x02"))
	if err != nil || r.Status != 422 || r.ContentLength != 10 || r.KeepAlive || r.Error != "byte 5 is 0x01,  want 0x02" {
		t.Errorf("422: %+v, %v", r, err)
	}
	r, err = bulk.ParseHTTPResponse(bulk.ResponseHead(200, 1<<40, true, ""))
	if err != nil || r.Status != 200 || r.ContentLength != 1<<40 || !r.KeepAlive || r.Error != "" {
		t.Errorf("200: %+v, %v", r, err)
	}
	r, err = bulk.ParseHTTPResponse([]byte("HTTP/1.1 503 Service Unavailable\r\nX-Squid-Error: ERR_CONNECT_FAIL 111\r\nTransfer-Encoding: chunked\r\n\r\n"))
	if err != nil || r.Status != 503 || !r.Chunked || r.ContentLength != -1 || r.Error != "ERR_CONNECT_FAIL 111" {
		t.Errorf("squid error: %+v, %v", r, err)
	}
	for _, bad := range []string{"SSH-2.0\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 +20 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"} {
		if _, err := bulk.ParseHTTPResponse([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestHTTPReader: heads and bodies come apart the same whatever way the
// peer's writes are split, bytes after a head are kept for what follows,
// and a head that does not end is cut at the cap without reading more.
func TestHTTPReader(t *testing.T) {
	t.Parallel()
	stream := string(bulk.UploadRequest("h", 5, 0, 0)) + "abcde" + string(bulk.DownloadRequest("h", 9, 0, 0))
	for _, split := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
		iotest.HalfReader,
	} {
		hr := bulk.NewHTTPReader(split(strings.NewReader(stream[7:])), []byte(stream[:7]))
		h1, err := hr.ReadHead()
		if err != nil || !bytes.HasPrefix(h1, []byte("POST ")) {
			t.Fatalf("first head %q, %v", h1, err)
		}
		body := make([]byte, 5)
		if _, err := io.ReadFull(hr, body); err != nil || string(body) != "abcde" {
			t.Errorf("body %q, %v", body, err)
		}
		h2, err := hr.ReadHead()
		if err != nil || !bytes.HasPrefix(h2, []byte("GET ")) {
			t.Errorf("second head %q, %v", h2, err)
		}
		if h1s := string(h1); !strings.HasSuffix(h1s, "\r\n\r\n") || strings.Contains(h1s, "abcde") {
			t.Errorf("first head changed after reading on: %q", h1s)
		}
		if _, err := hr.ReadHead(); err != io.EOF {
			t.Errorf("after the last request: %v, want EOF", err)
		}
	}

	r := strings.NewReader("GET / HTTP/1.1\r\n" + strings.Repeat("x", 3*bulk.MaxHTTPHead))
	if _, err := bulk.NewHTTPReader(r, nil).ReadHead(); err != bulk.ErrHTTPHeadTooLong {
		t.Errorf("endless head: %v", err)
	}
	if read := 3*bulk.MaxHTTPHead + 16 - r.Len(); read > bulk.MaxHTTPHead {
		t.Errorf("read %d bytes of a head capped at %d", read, bulk.MaxHTTPHead)
	}
	if _, err := bulk.NewHTTPReader(strings.NewReader("GET / HT"), nil).ReadHead(); err != io.ErrUnexpectedEOF {
		t.Errorf("head cut short: %v", err)
	}
}

// TestHTTPReaderCapsASeededHead: the cap holds also for bytes that came
// before the reader (the server seeds it with a whole first record, up to
// 16 KiB): a head that ends past MaxHTTPHead is refused, one that ends at
// it is read, and what follows stays for the next read.
func TestHTTPReaderCapsASeededHead(t *testing.T) {
	t.Parallel()
	head := func(n int) string {
		line := "GET / HTTP/1.1\r\nX: "
		return line + strings.Repeat("a", n-len(line)-4) + "\r\n\r\n"
	}
	long := head(bulk.MaxHTTPHead + 2048)
	if _, err := bulk.NewHTTPReader(strings.NewReader(""), []byte(long)).ReadHead(); err != bulk.ErrHTTPHeadTooLong {
		t.Errorf("a %d-byte head seeded whole: %v, want %v", len(long), err, bulk.ErrHTTPHeadTooLong)
	}
	exact := head(bulk.MaxHTTPHead)
	hr := bulk.NewHTTPReader(strings.NewReader("tail"), []byte(exact+"more "))
	if got, err := hr.ReadHead(); err != nil || string(got) != exact {
		t.Fatalf("a head of exactly %d bytes: %d bytes, %v", bulk.MaxHTTPHead, len(got), err)
	}
	if rest, _ := io.ReadAll(hr); string(rest) != "more tail" {
		t.Errorf("after the head: %q", rest)
	}
}

// BenchmarkHTTPReaderTrickle: a head that never ends, sent a byte a
// read, as a slow client would. The reader searches each byte once, so
// this costs about MaxHTTPHead steps, not MaxHTTPHead².
func BenchmarkHTTPReaderTrickle(b *testing.B) {
	data := "GET / HTTP/1.1\r\n" + strings.Repeat("x", bulk.MaxHTTPHead)
	for b.Loop() {
		r := iotest.OneByteReader(strings.NewReader(data))
		if _, err := bulk.NewHTTPReader(r, nil).ReadHead(); err != bulk.ErrHTTPHeadTooLong {
			b.Fatal(err)
		}
	}
}

// FuzzParseHTTPRequest: the server parses the request heads of any
// client. Whatever the bytes, parsing does not panic, refuses with a
// status it can answer, and what it accepts is in range and reads back
// the same from the client's own form.
func FuzzParseHTTPRequest(f *testing.F) {
	f.Add(bulk.DownloadRequest("localhost", 1<<20, 5, 0))
	f.Add(bulk.UploadRequest("localhost", 1<<20, 5, 1))
	f.Add(bulk.SourceRequest("localhost", 1, 0))
	f.Add([]byte("GET /tlsbench/bulk?bytes=1&bytes=1 HTTP/1.1\r\nTransfer-Encoding: x\r\n\r\n"))
	f.Add([]byte("POST /tlsbench/bulk?phase=9223372036854775807 HTTP/1.0\nContent-Length: 1\nConnection: keep-alive\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := bulk.ParseHTTPRequest(b)
		if err != nil {
			var he *bulk.HTTPError
			if !errors.As(err, &he) || he.Status < 400 || he.Status > 599 {
				t.Fatalf("error %v is not an HTTP refusal", err)
			}
			return
		}
		if req.Buffer < 1 || req.Buffer > bulk.MaxBuffer || req.Phase < 0 {
			t.Fatalf("accepted %+v", req)
		}
		var again []byte
		switch req.Kind {
		case bulk.HTTPOther:
			return
		case bulk.HTTPDownload:
			again = bulk.DownloadRequest("h", req.Bytes, req.Phase, req.Buffer)
		case bulk.HTTPUpload:
			again = bulk.UploadRequest("h", req.Bytes, req.Phase, req.Buffer)
		case bulk.HTTPSource:
			again = bulk.SourceRequest("h", req.Source, req.Buffer)
		}
		if req.Bytes < 0 || req.Bytes > bulk.MaxHTTPBody || (req.Kind != bulk.HTTPSource && req.Bytes == 0) || (req.Kind == bulk.HTTPSource) != (req.Source > 0) {
			t.Fatalf("accepted %+v", req)
		}
		back, err := bulk.ParseHTTPRequest(again)
		req.Target, back.Target, req.KeepAlive, back.KeepAlive = "", "", false, false
		if err != nil || back != req {
			t.Fatalf("%+v re-read as %+v, %v", req, back, err)
		}
	})
}

// FuzzParseHTTPResponse: the client parses whatever a server or proxy
// answers: never a panic, and only a status of three digits.
func FuzzParseHTTPResponse(f *testing.F) {
	f.Add(bulk.ResponseHead(200, 5, true, ""))
	f.Add(bulk.ResponseHead(422, 5, false, "why"))
	f.Add([]byte("HTTP/1.0 503 x\r\nX-Squid-Error: ERR\r\nTransfer-Encoding: chunked\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := bulk.ParseHTTPResponse(b)
		if err == nil && (r.Status < 100 || r.Status > 999 || r.ContentLength < -1) {
			t.Fatalf("accepted %+v", r)
		}
	})
}
