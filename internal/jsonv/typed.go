package jsonv

import "strconv"

// Typed stores: a decoder written for one Go type, without reflection,
// calls these for its fields. Each stores a value exactly as Store stores
// it in a value of that type, with Store's errors and paths (the path is
// the value's, "" for the document), so a hand-written decoder is Store
// less package reflect, which calc.wasm then does not link (issues 31,
// 33). A decoder for a struct is a StoreObject whose member function
// switches on the key and returns UnknownField for a key it does not have.

// StoreString stores a string in *p; null leaves it.
func StoreString[S ~string](t *Value, path string, p *S) error {
	switch t.Kind {
	case Null:
		return nil
	case String:
		*p = S(t.Str)
		return nil
	}
	return typeErr(t, path, "a string")
}

// StoreBool stores a boolean in *p; null leaves it.
func StoreBool(t *Value, path string, p *bool) error {
	switch t.Kind {
	case Null:
		return nil
	case Bool:
		*p = t.Bool
		return nil
	}
	return typeErr(t, path, "a boolean")
}

// StoreFloat stores a number in *p; null leaves it.
func StoreFloat(t *Value, path string, p *float64) error {
	switch t.Kind {
	case Null:
		return nil
	case Number:
		f, err := strconv.ParseFloat(t.Str, 64)
		if err != nil {
			return &Error{Offset: t.Start, Path: path, Msg: "number " + t.Str + " is out of range"}
		}
		*p = f
		return nil
	}
	return typeErr(t, path, "a number")
}

// StoreInt stores an integer in *p; null leaves it.
func StoreInt(t *Value, path string, p *int) error {
	switch t.Kind {
	case Null:
		return nil
	case Number:
		n, err := strconv.ParseInt(t.Str, 10, strconv.IntSize)
		if err != nil {
			return &Error{Offset: t.Start, Path: path, Msg: "want an integer in range, got " + t.Str}
		}
		*p = int(n)
		return nil
	}
	return typeErr(t, path, "an integer")
}

// StoreObject stores an object in a struct: member(key, value, path) for
// each key in order, after refusing a key given twice. null leaves the
// struct as it is.
func StoreObject(t *Value, path string, member func(key string, v *Value, path string) error) error {
	if t.Kind == Null {
		return nil
	}
	if t.Kind != Object {
		return typeErr(t, path, "an object")
	}
	seen := map[string]bool{}
	for i, k := range t.Keys {
		if seen[k] {
			return &Error{Offset: t.Members[i].Start, Path: join(path, k), Msg: "is given twice"}
		}
		seen[k] = true
		if err := member(k, &t.Members[i], join(path, k)); err != nil {
			return err
		}
	}
	return nil
}

// UnknownField is StoreObject's member error for a key that is not one of
// the struct's fields (v the member, path its path).
func UnknownField(v *Value, path string) error {
	return &Error{Offset: v.Start, Path: path, Msg: "is not a known field"}
}

// StoreMap stores an object in a map with string keys, each member stored
// by elem in a new element; null sets the map to nil. A map already there
// keeps its other entries.
func StoreMap[K ~string, E any](t *Value, path string, p *map[K]E, elem func(*Value, string, *E) error) error {
	if t.Kind == Null {
		*p = nil
		return nil
	}
	if t.Kind != Object {
		return typeErr(t, path, "an object")
	}
	if *p == nil {
		*p = make(map[K]E, len(t.Keys))
	}
	seen := map[string]bool{}
	for i, k := range t.Keys {
		if seen[k] {
			return &Error{Offset: t.Members[i].Start, Path: join(path, k), Msg: "is given twice"}
		}
		seen[k] = true
		var e E
		if err := elem(&t.Members[i], join(path, k), &e); err != nil {
			return err
		}
		(*p)[K(k)] = e
	}
	return nil
}

// StoreSlice stores an array in a new slice, each element stored by elem;
// null sets the slice to nil.
func StoreSlice[E any](t *Value, path string, p *[]E, elem func(*Value, string, *E) error) error {
	if t.Kind == Null {
		*p = nil
		return nil
	}
	if t.Kind != Array {
		return typeErr(t, path, "an array")
	}
	s := make([]E, len(t.Elems))
	for i := range t.Elems {
		if err := elem(&t.Elems[i], path+"["+strconv.Itoa(i)+"]", &s[i]); err != nil {
			return err
		}
	}
	*p = s
	return nil
}

// StoreArray stores an array in a Go array a (given as a[:]): elements
// beyond its length are dropped, and its elements beyond the array's are
// zeroed; null leaves it.
func StoreArray[E any](t *Value, path string, a []E, elem func(*Value, string, *E) error) error {
	if t.Kind == Null {
		return nil
	}
	if t.Kind != Array {
		return typeErr(t, path, "an array")
	}
	for i := range a {
		if i >= len(t.Elems) {
			var zero E
			a[i] = zero
			continue
		}
		if err := elem(&t.Elems[i], path+"["+strconv.Itoa(i)+"]", &a[i]); err != nil {
			return err
		}
	}
	return nil
}

// StorePtr stores a value through *p, allocating it when nil, by elem;
// null sets the pointer to nil.
func StorePtr[E any](t *Value, path string, p **E, elem func(*Value, string, *E) error) error {
	if t.Kind == Null {
		*p = nil
		return nil
	}
	if *p == nil {
		*p = new(E)
	}
	return elem(t, path, *p)
}
