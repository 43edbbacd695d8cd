package fit

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
	"github.com/wattscale/wattscale/model/csvx"
)

// ZeusHeader is the header of zeus-bert-power.csv (the bert_base_uncased rows
// of ml-energy/zeus's NSDI'23 power traces; scripts/fetch-zeus.sh builds it).
var ZeusHeader = []string{"gpu", "dataset", "network", "batch_size", "optimizer", "power_limit_w", "time_per_epoch_s", "average_power_w"}

// ZeusAssumptions are the tokens-per-epoch and shape assumptions used to
// convert Zeus power-trace rows to the measurement schema; the file does not
// record sequence length, examples per epoch or precision.
var ZeusAssumptions = map[string]struct {
	Examples float64
	SeqLen   int
	Note     string
}{
	"squad":        {88524, 384, "SQuAD v1.1: 87,599 questions give about 88,524 features at max_seq_length 384, doc_stride 128 (HF question-answering recipe)"},
	"sentiment140": {1600000, 64, "Sentiment140: 1,600,000 training tweets; sequence length not recorded: tweets are at most 140 characters, so an effective (dynamically padded) length of 64 tokens is assumed"},
}

// zeusPrecision is the assumed matmul precision: the trace does not record
// it; the Zeus workloads train without AMP, and PyTorch of that period ran
// fp32 matmuls as TF32 on Ampere (A40) by default.
var zeusPrecision = map[string]model.Precision{"a40": model.TF32, "v100": model.FP32, "p100": model.FP32}

// zeusGPU maps the file's gpu column to the hardware table.
var zeusGPU = map[string]string{"a40": "a40", "v100": "v100-pcie-16gb", "p100": "p100-pcie-16gb"}

// IsZeus reports whether header is the Zeus power-trace header.
func IsZeus(header []string) bool {
	if len(header) != len(ZeusHeader) {
		return false
	}
	for i := range header {
		if strings.TrimSpace(header[i]) != ZeusHeader[i] {
			return false
		}
	}
	return true
}

// ReadZeus converts the Zeus BERT power trace to measurement rows: one row
// per (gpu, dataset, batch, power limit) epoch, energy = time × average power.
// Rows for networks other than bert_base_uncased are errors.
func ReadZeus(r io.Reader) ([]model.Measurement, error) {
	rd, err := csvx.NewReader(r, csvx.Header{})
	if err != nil {
		return nil, fmt.Errorf("zeus: %w", err)
	}
	if !IsZeus(rd.Columns()) {
		return nil, fmt.Errorf("zeus: header %q is not %q", strings.Join(rd.Columns(), ","), strings.Join(ZeusHeader, ","))
	}
	out, err := csvx.All(rd, zeusRow)
	if err != nil {
		return nil, fmt.Errorf("zeus: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("zeus: no rows")
	}
	return out, nil
}

// zeusRow converts one row of the trace.
func zeusRow(row csvx.Row) (model.Measurement, error) {
	g, ds := row.Get("gpu"), row.Get("dataset")
	gpu, ok := zeusGPU[g]
	if !ok {
		return model.Measurement{}, row.Errorf("", "unknown gpu %q", g)
	}
	as, ok := ZeusAssumptions[ds]
	if !ok {
		return model.Measurement{}, row.Errorf("", "unknown dataset %q", ds)
	}
	if n := row.Get("network"); n != "bert_base_uncased" {
		return model.Measurement{}, row.Errorf("", "network %q is not bert_base_uncased", n)
	}
	var v [4]float64
	for i, c := range []string{"batch_size", "power_limit_w", "time_per_epoch_s", "average_power_w"} {
		var err error
		v[i], err = strconv.ParseFloat(row.Get(c), 64)
		if err != nil || !(v[i] > 0) || math.IsInf(v[i], 0) {
			return model.Measurement{}, row.Errorf(c, "%q is not a positive number", row.Get(c))
		}
	}
	batch, limit, t, p := v[0], v[1], v[2], v[3]
	if batch != math.Trunc(batch) {
		return model.Measurement{}, row.Errorf("", "batch_size %g is not whole", batch)
	}
	return model.Measurement{
		Model: "bert-base", Arch: bertBase, Head: "classifier", GPU: gpu, Count: 1, Strategy: model.Single,
		SeqLen: as.SeqLen, BatchPerGPU: int(batch), Tokens: as.Examples * float64(as.SeqLen),
		Precision: zeusPrecision[g], PowerLimitW: limit, EnergyKWh: t * p / 3.6e6, DurationS: t,
		Group: g + "/" + ds, Source: "Zeus NSDI'23 power trace (ml-energy/zeus)",
	}, nil
}

var bertBase = model.Arch{Layers: 12, Hidden: 768, Heads: 12, FFN: 3072, Vocab: 30522, Tied: true}

// MaxCSVBytes bounds a measurement CSV that ReadMeasurements reads; a
// longer one is an error naming the limit.
const MaxCSVBytes = 64 << 20

// ReadMeasurements reads either the Zeus trace or the measurement schema,
// deciding by the header; at most MaxCSVBytes.
func ReadMeasurements(r io.Reader, presets []model.Preset) ([]model.Measurement, error) {
	b, err := model.ReadAtMost(r, MaxCSVBytes)
	if err != nil {
		return nil, fmt.Errorf("measurements: %w", err)
	}
	if IsZeusCSV(b) {
		return ReadZeus(bytes.NewReader(b))
	}
	return model.ParseMeasurements(bytes.NewReader(b), presets)
}

// IsZeusCSV reports whether raw's first line is the Zeus power-trace header.
func IsZeusCSV(raw []byte) bool {
	if i := bytes.IndexAny(raw, "\r\n"); i >= 0 {
		raw = raw[:i]
	}
	return IsZeus(strings.Split(string(raw), ","))
}

// ZeusDataName is how calibrations fitted on the Zeus trace cite it.
const ZeusDataName = "Zeus BERT-base power trace (You, Chung, Chowdhury, NSDI 2023; ml-energy/zeus, Apache-2.0; tokens per epoch assumed: SQuAD v1.1 at 88,524 features × 384 tokens, Sentiment140 at 1.6 M tweets × 128 tokens)"

// naming returns how a fit cites its data and names its calibrations: the
// Zeus trace gets ZeusDataName, the prefix "wattscale" and the law name
// "wattscale-zeus-law"; other data the file name, the prefix "user" and
// "<prefix>-law". A non-empty prefix overrides the default one.
func naming(zeus bool, fileName, prefix string) (dataName, calPrefix, lawName string) {
	dataName, calPrefix = fileName, "user"
	if zeus {
		dataName, calPrefix = ZeusDataName, "wattscale"
	}
	if prefix != "" {
		calPrefix = prefix
	}
	lawName = calPrefix + "-law"
	if zeus {
		lawName = "wattscale-zeus-law"
	}
	return
}
