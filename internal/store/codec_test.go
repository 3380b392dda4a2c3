package store

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctxmap/ctxmap/internal/codec"
	"github.com/ctxmap/ctxmap/internal/records"
)

// Every field of a record, set to a value of its own, comes back from the state file's codec: a field
// added to records.Record, parse.File, records.Contribution or records.ChunkRef and not to codec.go fails here.
func TestRecordCodecKeepsEveryField(t *testing.T) {
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.String:
			v.SetString(fmt.Sprintf("s%d", n))
		case reflect.Int, reflect.Int32, reflect.Int64:
			v.SetInt(int64(n))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			fill(v.Index(0))
			fill(v.Index(1))
		case reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					fill(v.Field(i))
				}
			}
		default:
			t.Fatalf("the codec test does not fill a %s", v.Type())
		}
	}
	want := &records.Record{}
	fill(reflect.ValueOf(want).Elem())
	want.File.References[0].Enclosing = -1
	var w recordWriter
	w.record(want)
	first := len(w.B)
	w.record(&records.Record{Path: "empty"})
	r := recordReader{codec.Reader{B: w.B, Words: map[string]string{}}}
	got, err := r.record()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}
	if empty, err := r.record(); err != nil || !reflect.DeepEqual(empty, &records.Record{Path: "empty"}) || len(r.B) != 0 {
		t.Errorf("round trip of an empty record: %+v, %v, %d bytes left", empty, err, len(r.B))
	}
	// a record cut short anywhere is an error, never a panic or a record
	for cut := range first {
		r := recordReader{codec.Reader{B: w.B[:cut], Words: map[string]string{}}}
		if rec, err := r.record(); err == nil {
			t.Fatalf("a record cut at byte %d of %d decoded: %+v", cut, first, rec)
		}
	}
}
