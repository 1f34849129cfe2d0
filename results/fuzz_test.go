package results

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode, which reads files from
// anywhere (old runs, other tools, hand edits): it must never panic, every
// error must name the line (or the read) that failed, every record it
// returns must have a name and a kind and be free of contradictions (a
// record refused for one is never returned), and re-encoding a decoded record
// must be stable, so that report --format json can filter and merge
// results files without drift.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"",
		"\n\n",
		`{"name":"handshake/tls1.3/full/c1","kind":"handshake"}`,
		`{"name":"handshake/tls1.3/resume/c1","kind":"handshake","resume":true,"server_resumed":null,"error_us":null,"samples_us":[1,2.5,3e2],"env":{"peers":{"openssl":"3.0"}}}` + "\n",
		`{"name":"throughput/tls1.3/aes-128-gcm/16k","kind":"throughput","buffer_bytes":16384,"ktls_tx":true,"mbps":2140.5,"extra":{"tls_tx_sw":0}}`,
		`{"name":"x","kind":"handshake"} {"name":"y","kind":"handshake"}`,
		`{"name":"","kind":"handshake"}`,
		`{"name":"x","kind":"handshake","handshakes":1e2}`,
		`{"name":"x","kind":"handshake","samples_us":[1e400]}`,
		`{"name":"\u0000<script>","kind":"\ud800"}`,
		"[1,2,3]\nnull\n",
		`{"name":"x","kind":"handshake","errors_by_kind":{}}`,
	} {
		f.Add([]byte(s))
	}
	// Real records, when the report package's test data is at hand.
	for _, path := range []string{"../report/testdata/results.jsonl", "../report/testdata/candidate.jsonl"} {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := Decode(bytes.NewReader(data))
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "line ") && !strings.HasPrefix(msg, "reading results") {
				t.Errorf("error %q names no line", msg)
			}
		}
		for i := range recs {
			rec := &recs[i]
			if rec.Name == "" || rec.Kind == "" {
				t.Fatalf("record %d without name or kind: %+v", i, rec)
			}
			if err := rec.Validate(); err != nil {
				t.Fatalf("record %d was returned with a contradiction: %v", i, err)
			}
			once, err := Marshal(rec)
			if err != nil {
				t.Fatalf("decoded record %d does not encode: %v", i, err)
			}
			again, err := Decode(bytes.NewReader(once))
			if err != nil || len(again) != 1 {
				t.Fatalf("re-encoded record %d does not decode to one record: %v (%d records)\n%s", i, err, len(again), once)
			}
			twice, err := Marshal(&again[0])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(once, twice) {
				t.Fatalf("encoding is not stable:\n%s%s", once, twice)
			}
		}
	})
}
