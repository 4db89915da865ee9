// The look the charts of bench/charts.mjs share: how each program and door is named, its colour,
// their legends, and a summary's milliseconds as seconds.

/** The programs as the charts of the whole bench name them. */
export const WHO = {
  floor: "engine floor (no-I/O provider)",
  real: "pulumi-service + emulator",
  native: "native plugin + emulator",
};
/** The colour of each program, in every chart. */
export const COLORS = { floor: "#9aa0a6", real: "#1a73e8", native: "#e8710a" };
/** The programs as the charts of scale and latency runs name them (the doors by name). */
export const WHO_DOORS = { floor: WHO.floor, real: "dynamic door + emulator", native: WHO.native };
/** The legend of {@link WHO_DOORS}, each program in its colour. */
export const WHO_DOORS_COLOR = {
  field: "who",
  type: "nominal",
  title: null,
  scale: { domain: Object.values(WHO_DOORS), range: Object.keys(WHO_DOORS).map((k) => COLORS[k]) },
  legend: { orient: "top", labelLimit: 400 },
};

/** A summary in milliseconds (median, min, max) in seconds. */
export const seconds = (s) => ({ median: s.median / 1000, min: s.min / 1000, max: s.max / 1000 });

/** The doors as the charts of requests and latency runs name them. */
export const DOORS = { real: "dynamic door", native: "native door" };
/** The legend of {@link DOORS}, each door in its colour. */
export const DOOR_COLOR = {
  field: "door",
  type: "nominal",
  title: null,
  scale: { domain: Object.values(DOORS), range: [COLORS.real, COLORS.native] },
  legend: { orient: "top" },
};
