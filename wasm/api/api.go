// Package api is wattscale's JSON API over HTTP: the http.Handler that the
// Cloudflare Worker (wasm/worker) serves, built and tested natively with
// net/http/httptest.
//
// Routes, all under /api/v1/:
//
//	POST estimate       model.Request -> model.Response (as "go run ./site estimate")
//	POST distill        distill.Plan -> distill.Result (as "go run ./site distill")
//	GET  hardware       the accelerator table (HardwareList)
//	GET  calibrations   every calibration with provenance and fit statistics (CalibrationList)
//	GET  health         status, build and calibration versions (Health)
//	GET  openapi.json   an OpenAPI 3.1 description generated from the Go types
//
// Every answer is JSON. Bad input gets 400 with ErrorBody, a body over
// model.MaxRequestBytes 413, an unknown path 404, a wrong method 405 with an
// Allow header; a panic becomes a 500 ErrorBody, never a crash. Every route
// answers CORS requests from any origin, including preflight (OPTIONS); the
// GET routes carry Cache-Control and an ETag and answer If-None-Match with
// 304.
package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// Prefix is the path prefix of every route.
const Prefix = "/api/v1/"

// DefaultMaxAgeS is the Cache-Control max-age, in seconds, of the GET routes
// whose answer changes only with a new deployment.
const DefaultMaxAgeS = 3600

// Options configures NewHandler. The zero value is useful.
type Options struct {
	// Version identifies the build in GET /api/v1/health, for example a
	// commit hash; "" reports "dev".
	Version string
	// MaxAgeS is the Cache-Control max-age, in seconds, of GET hardware,
	// calibrations and openapi.json; 0 means DefaultMaxAgeS.
	MaxAgeS int
	// MaxAnswerBytes bounds a POST answer: a longer one is refused with
	// 400 instead (the work budget keeps answers far below it; this is
	// the backstop); 0 means DefaultMaxAnswerBytes.
	MaxAnswerBytes int
}

// DefaultMaxAnswerBytes is the longest POST answer, 1 MiB.
const DefaultMaxAnswerBytes = 1 << 20

// ErrorBody is the body of every error answer (4xx and 5xx).
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what was wrong: Field is a dotted JSON path such as
// "training.batch_per_gpu", or "(body)", "(path)", "(method)" or "(server)"
// for errors that belong to no field; Message says what is accepted and,
// where there was one, the value given.
type ErrorDetail struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	// Code and Args are the error as data (model.Message): a stable code
	// and the values its words speak of; absent for an error not yet
	// coded.
	Code string     `json:"code,omitempty"`
	Args model.Args `json:"args,omitempty"`
}

// HardwareList is the body of GET /api/v1/hardware.
type HardwareList struct {
	GPUs []model.GPU `json:"gpus"`
}

// CalibrationList is the body of GET /api/v1/calibrations.
type CalibrationList struct {
	Default      string              `json:"default"` // the calibration an estimate uses when the request names none
	Calibrations []model.Calibration `json:"calibrations"`
}

// Health is the body of GET /api/v1/health.
type Health struct {
	Status             string               `json:"status" enum:"ok"`
	Version            string               `json:"version"`     // the build, Options.Version
	APIVersion         string               `json:"api_version"` // model.APIVersion
	DefaultCalibration string               `json:"default_calibration"`
	Calibrations       []CalibrationVersion `json:"calibrations"`
}

// CalibrationVersion names one calibration and its version.
type CalibrationVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// route is one path of the API. GET routes have a body computed once;
// POST routes decode and answer each request.
type route struct {
	path, method       string
	opID, summary, doc string
	in, out            reflect.Type // request body (POST) and 200 body types
	post               func(body []byte) (any, error)
	body               []byte // GET: the answer
	etag               string // GET: quoted hash of body
	cache              string // Cache-Control of a 200 answer
}

// handler serves the routes; it is read-only after NewHandler and safe for
// concurrent use.
type handler struct {
	routes    map[string]*route
	maxAnswer int
}

// NewHandler returns the API handler over cat, which it makes read
// requests' Hugging Face files (cat.ReadHFFiles). The GET answers are
// computed here, once; the error is only for a catalog that cannot be
// encoded.
func NewHandler(cat *model.Catalog, opts Options) (http.Handler, error) {
	cat.ReadHFFiles()
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.MaxAgeS <= 0 {
		opts.MaxAgeS = DefaultMaxAgeS
	}
	static := fmt.Sprintf("public, max-age=%d", opts.MaxAgeS)
	routes := []*route{
		{
			path: Prefix + "estimate", method: http.MethodPost, opID: "estimate",
			summary: "Estimate the energy, time, carbon and cost of a fine-tuning run",
			doc:     "The same request and response as `go run ./site estimate` and the browser calculator.",
			in:      reflect.TypeFor[model.Request](), out: reflect.TypeFor[model.Response](),
			post: func(body []byte) (any, error) {
				req, err := model.ParseRequest(bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				return cat.Estimate(req)
			},
		},
		{
			path: Prefix + "distill", method: http.MethodPost, opID: "distill",
			summary: "Compare distillation pipelines by energy: stages, break-even N*, serving threshold T*, Pareto set, advice",
			doc:     "The same plan and result as `go run ./site distill`." + budgetDoc,
			in:      reflect.TypeFor[distill.Plan](), out: reflect.TypeFor[distill.Result](),
			post: func(body []byte) (any, error) {
				plan, err := distill.ParsePlan(bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				return distill.Evaluate(cat, plan)
			},
		},
		{
			path: Prefix + "recommend", method: http.MethodPost, opID: "recommend",
			summary: "Find the least-energy (or CO2e, cost, time) configuration of a workload by a deadline: GPU type, count, layout and power limit",
			doc:     "The same request and response as `go run ./site recommend`: best, the time–energy Pareto front sorted by time_s, current and saving." + budgetDoc,
			in:      reflect.TypeFor[model.RecommendRequest](), out: reflect.TypeFor[model.RecommendResponse](),
			post: func(body []byte) (any, error) {
				req, err := model.ParseRecommendRequest(bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				return cat.Recommend(req)
			},
		},
		{
			path: Prefix + "distill/recommend", method: http.MethodPost, opID: "recommendPlan",
			summary: "Find the least-energy (or CO2e, cost, time) hardware of each GPU-bound stage of a distillation plan, stage by stage",
			doc:     "The same request and response as `go run ./site recommend -plan`: per stage best, pareto, current, saving and warnings (the shapes of /api/v1/recommend), or the reason a stage is not searched; plan_total_kwh before and plan_total_best_kwh after." + budgetDoc,
			in:      reflect.TypeFor[distill.RecommendRequest](), out: reflect.TypeFor[distill.Recommendation](),
			post: func(body []byte) (any, error) {
				req, err := distill.ParseRecommendRequest(bytes.NewReader(body))
				if err != nil {
					return nil, err
				}
				return distill.Recommend(cat, req)
			},
		},
		{
			path: Prefix + "hardware", method: http.MethodGet, opID: "listHardware",
			summary: "List the accelerators with their peak rates, power and sources",
			out:     reflect.TypeFor[HardwareList](), cache: static,
			body: encodeOrNil(HardwareList{GPUs: cat.Hardware.GPUs}),
		},
		{
			path: Prefix + "calibrations", method: http.MethodGet, opID: "listCalibrations",
			summary: "List the calibrations with provenance, envelope and fit statistics",
			out:     reflect.TypeFor[CalibrationList](), cache: static,
			body: encodeOrNil(CalibrationList{Default: cat.Default, Calibrations: cat.Calibrations}),
		},
		{
			path: Prefix + "health", method: http.MethodGet, opID: "health",
			summary: "Report status, build version and calibration versions",
			out:     reflect.TypeFor[Health](), cache: "no-cache",
			body: encodeOrNil(health(cat, opts.Version)),
		},
		{
			path: Prefix + "openapi.json", method: http.MethodGet, opID: "openapi",
			summary: "This API's OpenAPI 3.1 description",
			out:     reflect.TypeFor[map[string]any](), cache: static,
		},
	}
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = DefaultMaxAnswerBytes
	}
	h := &handler{routes: map[string]*route{}, maxAnswer: opts.MaxAnswerBytes}
	for _, rt := range routes {
		h.routes[rt.path] = rt
	}
	doc, err := openAPI(routes, opts.Version)
	if err != nil {
		return nil, err
	}
	h.routes[Prefix+"openapi.json"].body = doc
	for _, rt := range routes {
		if rt.method == http.MethodGet {
			if rt.body == nil {
				return nil, fmt.Errorf("api: cannot encode the answer of %s", rt.path)
			}
			rt.etag = etag(rt.body)
		}
	}
	return h, nil
}

// budgetDoc states the work budget of the routes that search or estimate
// many configurations (model.DefaultWorkBudget).
var budgetDoc = fmt.Sprintf(" Work budget: a request may ask for at most %d work units, counted from the request before any work is done: each fine-tuning configuration a search tries (GPU type × count × layout × power limit) is %d, each inference configuration of a teacher or eval stage (GPU type × count × layout) %d, each search %d more, and each plan stage given as a configuration (teacher, student, eval) %d. A request over the budget gets 400 with field naming what sets its size (candidates, stages[i].candidates or options) and a message giving its work, its largest parts and the budget; `go run ./site` has the same budget unless -budget raises it.",
	model.DefaultWorkBudget, model.WorkPerConfig, model.WorkPerInferenceConfig, model.WorkPerSearch, model.WorkPerEstimatedStage)

func health(cat *model.Catalog, version string) Health {
	h := Health{Status: "ok", Version: version, APIVersion: model.APIVersion, DefaultCalibration: cat.Default}
	for _, c := range cat.Calibrations {
		h.Calibrations = append(h.Calibrations, CalibrationVersion{Name: c.Name, Version: c.Version, Kind: c.Kind})
	}
	return h
}

// encodeOrNil encodes v, or returns nil (NewHandler reports it).
func encodeOrNil(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

func etag(b []byte) string {
	h := fnv.New64a()
	h.Write(b)
	return fmt.Sprintf(`"%016x"`, h.Sum64())
}

// ServeHTTP dispatches by exact path, then by method.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		// The answer is written in one piece at the end, so nothing has been
		// written when a panic arrives here.
		if v := recover(); v != nil {
			writeError(w, r, http.StatusInternalServerError, "(server)", fmt.Sprintf("internal error: %v", v))
		}
	}()
	w.Header().Set("Access-Control-Allow-Origin", "*")
	rt, ok := h.routes[r.URL.Path]
	if !ok {
		writeError(w, r, http.StatusNotFound, "(path)", fmt.Sprintf("no route %s; GET %sopenapi.json lists them", clip(r.URL.Path), Prefix))
		return
	}
	allow := rt.method + ", OPTIONS"
	if rt.method == http.MethodGet {
		allow = "GET, HEAD, OPTIONS"
	}
	switch {
	case r.Method == http.MethodOptions:
		// CORS preflight (or a plain OPTIONS): the methods and the one
		// non-safelisted header (Content-Type: application/json) allowed.
		hd := w.Header()
		hd.Set("Allow", allow)
		hd.Set("Access-Control-Allow-Methods", allow)
		hd.Set("Access-Control-Allow-Headers", "Content-Type")
		hd.Set("Access-Control-Max-Age", "86400")
		hd.Set("Cache-Control", "public, max-age=86400")
		w.WriteHeader(http.StatusNoContent)
	case r.Method == rt.method || r.Method == http.MethodHead && rt.method == http.MethodGet:
		if rt.post != nil {
			h.servePost(w, r, rt)
		} else {
			serveGet(w, r, rt)
		}
	default:
		w.Header().Set("Allow", allow)
		writeError(w, r, http.StatusMethodNotAllowed, "(method)", fmt.Sprintf("%s is not allowed on %s; use %s", clip(r.Method), rt.path, rt.method))
	}
}

func serveGet(w http.ResponseWriter, r *http.Request, rt *route) {
	hd := w.Header()
	hd.Set("ETag", rt.etag)
	hd.Set("Cache-Control", rt.cache)
	hd.Set("Access-Control-Expose-Headers", "ETag")
	// Values, not Get: syumai/workers splits a header's list at commas into
	// several values.
	if etagMatch(strings.Join(r.Header.Values("If-None-Match"), ","), rt.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeBody(w, r, http.StatusOK, rt.body)
}

// etagMatch reports whether an If-None-Match list names tag (weak
// comparison, as RFC 9110 asks for If-None-Match) or is "*".
func etagMatch(list, tag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == tag || t == "*" {
			return true
		}
	}
	return false
}

func (h *handler) servePost(w http.ResponseWriter, r *http.Request, rt *route) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Body == nil { // a client-side *http.Request; servers always set one
		r.Body = http.NoBody
	}
	if r.ContentLength > model.MaxRequestBytes {
		drain(r.Body)
		writeError(w, r, http.StatusRequestEntityTooLarge, "(body)", model.TooLarge().Message)
		return
	}
	body, err := model.ReadAtMost(r.Body, model.MaxRequestBytes)
	switch {
	case errors.Is(err, model.ErrTooLarge):
		drain(r.Body)
		writeError(w, r, http.StatusRequestEntityTooLarge, "(body)", model.TooLarge().Message)
		return
	case err != nil:
		writeError(w, r, http.StatusBadRequest, "(body)", "could not be read: "+err.Error())
		return
	}
	out, err := rt.post(body)
	if err != nil {
		if fe := model.AsFieldError(err); fe != nil {
			field, msg := fe.Field, fe.Message
			if fe.Value != "" {
				msg += ", got " + fe.Value
			}
			if field == "" { // an object key "" (model names the field by its key)
				field, msg = "(body)", `has a field named "" that `+msg
			}
			writeDetail(w, r, http.StatusBadRequest, ErrorDetail{Field: field, Message: msg, Code: fe.Code, Args: fe.Args})
			return
		}
		writeError(w, r, http.StatusInternalServerError, "(server)", "internal error: "+err.Error())
		return
	}
	buf := answers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxKeptAnswer {
			answers.Put(buf)
		}
	}()
	buf.Reset()
	// Encode writes what json.Marshal writes, then a line feed.
	if err := json.NewEncoder(buf).Encode(out); err != nil {
		writeError(w, r, http.StatusInternalServerError, "(server)", "internal error: "+err.Error())
		return
	}
	if buf.Len() > h.maxAnswer {
		writeError(w, r, http.StatusBadRequest, "(body)", fmt.Sprintf("asks for an answer of %d bytes, more than the %d one may be; narrow the search (fewer candidates, a lower max_count, fewer power_limits_w) or split the request", buf.Len(), h.maxAnswer))
		return
	}
	writeBody(w, r, http.StatusOK, buf.Bytes())
}

// answers are the buffers answers are encoded in: reused, an answer of
// several kilobytes costs no allocation and, in the Worker, no garbage
// collection (writeBody's Write copies it before the buffer goes back).
var answers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxKeptAnswer bounds a buffer kept for reuse: a rare large answer (a
// plan sweep) is left to the collector.
const maxKeptAnswer = 256 << 10

// maxDrain bounds what is read and discarded of a body that is too large,
// as net/http's server does: reading the rest lets the client, still
// sending, receive the 413 instead of a reset connection (workerd closes a
// connection whose request body was left unread). The body is already
// refused, so the bound cuts no input.
const maxDrain = 256 << 10

func drain(body io.Reader) {
	io.Copy(io.Discard, io.LimitReader(body, maxDrain))
}

func writeError(w http.ResponseWriter, r *http.Request, status int, field, msg string) {
	writeDetail(w, r, status, ErrorDetail{Field: field, Message: msg})
}

func writeDetail(w http.ResponseWriter, r *http.Request, status int, d ErrorDetail) {
	if status != http.StatusMethodNotAllowed {
		w.Header().Del("Allow")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Del("ETag")
	b, err := json.Marshal(ErrorBody{d})
	if err != nil { // cannot happen: strings and finite numbers
		b = []byte(`{"error":{"field":"(server)","message":"internal error"}}`)
	}
	writeBody(w, r, status, append(b, '\n'))
}

// writeBody writes a whole JSON answer in one Write (HEAD: headers only).
func writeBody(w http.ResponseWriter, r *http.Request, status int, b []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/json; charset=utf-8")
	hd.Set("Content-Length", strconv.Itoa(len(b)))
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

// clip quotes s for an error message, shortened to 100 bytes.
func clip(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return strconv.Quote(s)
}
