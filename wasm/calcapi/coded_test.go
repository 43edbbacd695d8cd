package calcapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/distill"
)

// answer runs body through what the API's endpoint ep runs (estimate,
// recommend, distill, distill/recommend) and returns its error.
func answer(cat *model.Catalog, ep string, body []byte) error {
	var err error
	switch ep {
	case "estimate":
		var req model.Request
		if req, err = model.ParseRequest(bytes.NewReader(body)); err == nil {
			_, err = cat.Estimate(req)
		}
	case "recommend":
		var req model.RecommendRequest
		if req, err = model.ParseRecommendRequest(bytes.NewReader(body)); err == nil {
			_, err = cat.Recommend(req)
		}
	case "distill":
		var p distill.Plan
		if p, err = distill.ParsePlan(bytes.NewReader(body)); err == nil {
			_, err = distill.Evaluate(cat, p)
		}
	case "distill/recommend":
		var req distill.RecommendRequest
		if req, err = distill.ParseRecommendRequest(bytes.NewReader(body)); err == nil {
			_, err = distill.Recommend(cat, req)
		}
	}
	return err
}

// checkCoded fails unless err is a coded *model.FieldError whose technical
// words are its message and whose page words name no request path and no
// GPU id.
func checkCoded(t *testing.T, name string, err error) {
	t.Helper()
	fe := model.AsFieldError(err)
	switch {
	case err == nil:
		t.Errorf("%s: accepted, want an error", name)
		return
	case fe == nil:
		t.Errorf("%s: error %q is not a *model.FieldError", name, err)
		return
	case fe.Code == "":
		t.Errorf("%s: error %q has no code", name, err)
		return
	}
	if tech := fe.Msg().Text(model.Technical); tech != fe.Message {
		t.Errorf("%s: %s: message %q, but its code's words are %q", name, fe.Code, fe.Message, tech)
	}
	page := Say(fe.Msg())
	for _, p := range []string{"training.", "hardware.", "model.", "site.", "strategy."} {
		if strings.Contains(page, p) {
			t.Errorf("%s: %s: the page's words %q write a request path (%s…)", name, fe.Code, page, p)
		}
	}
	for _, g := range model.DefaultGPUs() {
		if strings.Contains(page, g.ID) {
			t.Errorf("%s: %s: the page's words %q write the GPU id %s", name, fe.Code, page, g.ID)
		}
	}
}

// TestUserErrorsAreCoded runs bad requests through the API's four POST
// answers, a value out of range (or not among the choices) for every
// request field of the field table, and the refusals in
// testdata/bad-requests.tsv (one per line: endpoint, a tab, the body;
// layout, memory, Hugging Face, plan and search refusals): each error has
// a code, its message is its code's words, and the page's words name
// labels and GPUs, not request paths or GPU ids.
func TestUserErrorsAreCoded(t *testing.T) {
	cat, err := content.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]any{}
	if err := json.Unmarshal([]byte(`{"model": {"preset": "llama-3-8b"},
		"training": {"tokens": 2e8, "seq_len": 1024, "batch_per_gpu": 4, "precision": "bf16", "method": "lora"},
		"hardware": {"gpu": "a100-sxm4-80gb", "count": 4}, "strategy": "fsdp"}`), &base); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range model.RequestFields {
		var bad any
		switch {
		case f.Path == "" || strings.HasPrefix(f.Path, "model.hf_") || strings.HasPrefix(f.Path, "training.hf_") || f.Path == "training.peft":
			continue // the files' own errors are in the testdata
		case f.Bounds != nil:
			bad = f.Bounds.Max*10 + 1
		case f.Kind == model.KindEnum || f.Path == "hardware.gpu" || f.Path == "model.preset":
			bad = "zz-none"
		default:
			continue
		}
		req := deepCopy(t, base)
		setPath(req, f.Path, bad)
		if f.Path == "training.dataset_tokens" || f.Path == "training.epochs" || f.Path == "training.dataset_examples" {
			delete(req["training"].(map[string]any), "tokens")
		}
		body, _ := json.Marshal(req)
		checkCoded(t, f.Path, answer(cat, "estimate", body))
		n++
	}
	if n < 20 {
		t.Errorf("only %d fields of the field table tried", n)
	}
	file, err := os.Open("testdata/bad-requests.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		ep, body, _ := strings.Cut(sc.Text(), "\t")
		checkCoded(t, "line "+strconv.Itoa(line)+" ("+ep+")", answer(cat, ep, []byte(body)))
	}
}

func deepCopy(t *testing.T, m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// setPath sets the dotted path in m to v, making the objects on its way.
func setPath(m map[string]any, path string, v any) {
	keys := strings.Split(path, ".")
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = v
}
