package api_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/wattscale/wattscale/content"
	"github.com/wattscale/wattscale/wasm/api"
)

func ExampleNewHandler() {
	cat, err := content.Catalog()
	if err != nil {
		panic(err)
	}
	h, err := api.NewHandler(cat, api.Options{Version: "example"})
	if err != nil {
		panic(err)
	}
	body := `{"model": {"preset": "bert-base"},
	  "training": {"tokens": 2e8, "seq_len": 128, "batch_per_gpu": 0, "precision": "fp16"},
	  "hardware": {"gpu": "a100", "count": 4}, "strategy": "fsdp"}`
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/api/v1/estimate", strings.NewReader(body)))
	fmt.Print(w.Code, " ", w.Body)
	// Output:
	// 400 {"error":{"field":"training.batch_per_gpu","message":"must be a whole number from 1 to 65536, got 0","code":"range.whole","args":{"max":65536,"min":1}}}
}
