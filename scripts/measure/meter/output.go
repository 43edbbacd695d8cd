package meter

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/model"
)

func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// WritePower writes the raw samples as CSV, one reading a row, in time
// order: t_s (seconds since the command started; negative in the idle
// baseline), device (gpu0, gpu1, ... or the RAPL package name), quantity
// (power_w, or energy_uj for the raw RAPL counter), value (empty for a
// reading without a number), raw (what nvidia-smi printed when it was not a
// number), and stage (idle, a stage name, or "" outside stages).
func WritePower(w io.Writer, rec *Recording) error {
	segs, _, _, _ := Timeline(rec.Events, rec.StartS, rec.EndS, rec.FirstStage)
	stageAt := func(t float64) string {
		if t < rec.StartS {
			if t >= rec.IdleS && rec.IdleS < rec.StartS {
				return "idle"
			}
			return ""
		}
		i := sort.Search(len(segs), func(i int) bool { return segs[i].ToS > t })
		if i < len(segs) && segs[i].FromS <= t {
			return segs[i].Stage
		}
		return ""
	}
	type row struct {
		t   float64
		rec []string
	}
	var rows []row
	for _, g := range rec.GPUs {
		dev := "gpu" + strconv.Itoa(g.Index)
		for _, s := range g.Samples {
			v, raw := "", ""
			if s.OK {
				v = fmtF(s.W)
			} else {
				raw = s.Raw
			}
			rows = append(rows, row{s.T, []string{fmtF(s.T - rec.StartS), dev, "power_w", v, raw, stageAt(s.T)}})
		}
	}
	for _, c := range rec.CPUs {
		for _, s := range c.Samples {
			v := ""
			if s.OK {
				v = fmtF(s.UJ)
			}
			rows = append(rows, row{s.T, []string{fmtF(s.T - rec.StartS), c.Domain.Name, "energy_uj", v, "", stageAt(s.T)}})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].t < rows[j].t })
	cw := csv.NewWriter(w)
	cw.Write([]string{"t_s", "device", "quantity", "value", "raw", "stage"})
	for _, r := range rows {
		cw.Write(r.rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteStages writes the per-stage table as CSV, one row per stage and a
// last row "total" for the whole run: stage, start_s, end_s, duration_s,
// segments, tokens, gpu_energy_j, gpu_energy_kwh, cpu_energy_j,
// gpu_j_per_token, mean_gpu_power_w.
func WriteStages(w io.Writer, s *Summary) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"stage", "start_s", "end_s", "duration_s", "segments", "tokens", "gpu_energy_j", "gpu_energy_kwh", "cpu_energy_j", "gpu_j_per_token", "mean_gpu_power_w"})
	for _, st := range s.Stages {
		cw.Write([]string{st.Name, fmtF(st.StartS), fmtF(st.EndS), fmtF(st.DurationS), strconv.Itoa(st.Segments), fmtF(st.Tokens),
			fmtF(st.GPUEnergyJ), fmtF(st.GPUEnergyJ / 3.6e6), fmtF(st.CPUEnergyJ), fmtF(st.GPUJPerToken), fmtF(st.MeanGPUPowerW)})
	}
	jpt, mean := 0.0, 0.0
	if s.Tokens > 0 {
		jpt = s.GPUEnergyJ / s.Tokens
	}
	if s.DurationS > 0 {
		mean = s.GPUEnergyJ / s.DurationS
	}
	cw.Write([]string{"total", "0", fmtF(s.DurationS), fmtF(s.DurationS), strconv.Itoa(len(s.Stages)), fmtF(s.Tokens),
		fmtF(s.GPUEnergyJ), fmtF(s.GPUEnergyKW), fmtF(s.CPUEnergyJ), fmtF(jpt), fmtF(mean)})
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// AppendRows appends measurement rows to the CSV file at path, creating it
// with the schema's header when it does not exist. An existing file must
// start with exactly that header (model.MeasurementColumns).
func AppendRows(path string, rows []model.Measurement) error {
	var b bytes.Buffer
	if err := model.WriteMeasurements(&b, rows); err != nil {
		return err
	}
	data := b.Bytes()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("measure: -append: %w", err)
	}
	defer f.Close()
	first, err := bufio.NewReader(f).ReadString('\n')
	switch {
	case errors.Is(err, io.EOF) && first == "":
		// new or empty file: write the header too
	case err != nil && !errors.Is(err, io.EOF):
		return fmt.Errorf("measure: -append: %w", err)
	default:
		head := strings.TrimRight(strings.TrimPrefix(first, "\ufeff"), "\r\n")
		if head != strings.Join(model.MeasurementColumns, ",") {
			return fmt.Errorf("measure: -append: %s does not start with the measurement header (%s); give a new file", path, strings.Join(model.MeasurementColumns, ","))
		}
		data = data[bytes.IndexByte(data, '\n')+1:]
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		// A file not ending in a newline gets one first.
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte("\n"), data...)
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("measure: -append: %w", err)
	}
	return f.Close()
}
