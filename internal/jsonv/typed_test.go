package jsonv

import (
	"reflect"
	"testing"
)

// typed has a field of each kind the typed stores handle.
type typed struct {
	Name  string             `json:"name"`
	Kind  kind               `json:"kind"`
	N     int                `json:"n"`
	F     float64            `json:"f"`
	On    bool               `json:"on"`
	P     *inner             `json:"p"`
	Pair  [2]float64         `json:"pair"`
	List  []string           `json:"list"`
	Map   map[kind]inner     `json:"map"`
	Nums  map[string]float64 `json:"nums"`
	Inner []inner            `json:"inner"`
}

// storeTyped is Store for a typed, written with the typed stores.
func storeTyped(t *Value, path string, x *typed) error {
	return StoreObject(t, path, func(k string, v *Value, p string) error {
		switch k {
		case "name":
			return StoreString(v, p, &x.Name)
		case "kind":
			return StoreString(v, p, &x.Kind)
		case "n":
			return StoreInt(v, p, &x.N)
		case "f":
			return StoreFloat(v, p, &x.F)
		case "on":
			return StoreBool(v, p, &x.On)
		case "p":
			return StorePtr(v, p, &x.P, storeInner)
		case "pair":
			return StoreArray(v, p, x.Pair[:], StoreFloat)
		case "list":
			return StoreSlice(v, p, &x.List, StoreString[string])
		case "map":
			return StoreMap(v, p, &x.Map, storeInner)
		case "nums":
			return StoreMap(v, p, &x.Nums, StoreFloat)
		case "inner":
			return StoreSlice(v, p, &x.Inner, storeInner)
		}
		return UnknownField(v, p)
	})
}

func storeInner(t *Value, path string, x *inner) error {
	return StoreObject(t, path, func(k string, v *Value, p string) error {
		switch k {
		case "v":
			return StoreFloat(v, p, &x.V)
		case "se":
			return StoreFloat(v, p, &x.SE)
		}
		return UnknownField(v, p)
	})
}

// FuzzTypedStores holds a decoder written with the typed stores to Store:
// the same value (after an error too) and the same error, into a fresh
// value and into one already set (null and a short array keep or clear
// what is there as Store does).
func FuzzTypedStores(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","kind":"k","n":3,"f":-1.5e-7,"on":true,"p":{"v":2},"pair":[1,2,3],"list":["x","é"],"map":{"a":{"v":1,"se":0.5}},"nums":{"x":1},"inner":[{"v":1},{"se":2}]}`,
		`{"name":null,"kind":null,"n":null,"f":null,"on":null,"p":null,"pair":null,"list":null,"map":null,"nums":null,"inner":null}`,
		`{"pair":[1]}`, `{"n":1.5}`, `{"n":1e30}`, `{"f":1e999}`, `{"n":"1"}`, `{"name":1}`, `{"x":1}`, `{"name":"a","name":"b"}`, `{"Name":"a"}`,
		`{"map":{"a":{},"a":{}}}`, `{"map":{"a":{"v":"x"}}}`, `{"inner":[{"v":1},{"w":1}]}`, `{"pair":{}}`, `{"list":[1]}`, `{"on":1}`, `{"p":{"v":1,"q":2}}`,
		`null`, `[]`, `1`, `"s"`, `{"nums":[]}`, `{"kind":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if err != nil {
			return
		}
		full := func() typed {
			return typed{Name: "old", Kind: "old", N: 7, F: 7, On: true, P: &inner{V: 7}, Pair: [2]float64{7, 7}, List: []string{"old"},
				Map: map[kind]inner{"old": {V: 7}}, Nums: map[string]float64{"old": 7}, Inner: []inner{{V: 7}}}
		}
		for _, start := range []func() typed{func() typed { return typed{} }, full} {
			got, want := start(), start()
			gotErr := storeTyped(&v, "", &got)
			wantErr := Store(v, &want)
			if !reflect.DeepEqual(gotErr, wantErr) {
				t.Fatalf("storeTyped(%s) error = %v, Store's %v", b, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("storeTyped(%s) = %+v, Store's %+v", b, got, want)
			}
		}
	})
}
