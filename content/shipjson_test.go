package content

import (
	"reflect"
	"testing"

	"github.com/wattscale/wattscale/internal/jsonv"
)

// FuzzStoreShippedFile holds DecodeCalibrations' decoder (storeShippedFile,
// without reflection) to jsonv.Decode: the same files and the same error.
func FuzzStoreShippedFile(f *testing.F) {
	files, err := ReadCalibrations(Calibrations, "calibrations")
	if err != nil {
		f.Fatal(err)
	}
	b, err := EncodeCalibrations(files)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{`[]`, `null`, `{}`, `[{"path":"a.json","raw":"{}"},{"path":1}]`, `[{"path":"a","path":"b"}]`, `[{"Path":"a"}]`,
		`[{"path":null,"raw":null},null,{}]`, `[{"path":"a","raw":"x","x":1}]`, `[["a"]]`, `[{"raw":{"a":1}}]`, `"s"`, `[{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []shippedFile
		v, gotErr := jsonv.Parse(b)
		if gotErr == nil {
			gotErr = jsonv.StoreSlice(&v, "", &got, storeShippedFile)
		}
		var want []shippedFile
		wantErr := jsonv.Decode(b, &want)
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("storeShippedFile(%.200s) error = %v, jsonv.Decode's %v", b, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("storeShippedFile(%.200s) = %+v, jsonv.Decode's %+v", b, got, want)
		}
	})
}
