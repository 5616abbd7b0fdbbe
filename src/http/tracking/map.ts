/**
 * The tracking page's map: an inline SVG of Sri Lanka drawn from the service's own geodata (the boundary polygon of
 * src/domain/geo and the gazetteer's places), with the pickup, the drop-off and the driver. Pure: a view in, SVG text
 * out; no tiles, no fonts, no requests.
 *
 * Projection: equirectangular around the island's middle latitude, in kilometres (x east, y south), so a viewBox is
 * measured in km and "never narrower than 20 km" is a number in it. At 6–10° N the error is well under 1 %.
 */
import boundary from '../../domain/geo/data/boundary.json';
import gazetteer from '../../domain/geo/data/places.json';
import type { LatLon } from '../../domain/geo/types';
import { escapeHtml } from '../../shared/html';

const KM_PER_DEG = 111.195;
const LON0 = 79.3;
const LAT_TOP = 10.1;
const KX = KM_PER_DEG * Math.cos(7.9 * (Math.PI / 180));

export interface Point {
  x: number;
  y: number;
}
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A position on the map, in km east of 79.3° E and south of 10.1° N. */
export function project(p: LatLon): Point {
  return { x: (p.lon - LON0) * KX, y: (LAT_TOP - p.lat) * KM_PER_DEG };
}

/** Douglas–Peucker on the projected outline: the boundary has 33 hand-drawn vertices today; a finer one is thinned here. */
function simplify(points: Point[], toleranceKm: number): Point[] {
  if (points.length < 3) return points;
  const a = points[0];
  const b = points[points.length - 1];
  const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
  let far = 0;
  let at = 0;
  for (let i = 1; i < points.length - 1; i++) {
    const d = Math.abs((b.x - a.x) * (a.y - points[i].y) - (a.x - points[i].x) * (b.y - a.y)) / len;
    if (d > far) [far, at] = [d, i];
  }
  if (far <= toleranceKm) return [a, b];
  return [...simplify(points.slice(0, at + 1), toleranceKm).slice(0, -1), ...simplify(points.slice(at), toleranceKm)];
}

const n1 = (v: number) => Math.round(v * 10) / 10;
const OUTLINE = simplify(
  boundary.polygon.map(([lat, lon]) => project({ lat, lon })),
  0.5,
);
/** The island's outline as an SVG path (computed once). */
const OUTLINE_PATH = `M${OUTLINE.map((p) => `${n1(p.x)} ${n1(p.y)}`).join('L')}Z`;

function bounds(points: Point[]): Box {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y };
}
function grow(b: Box, w: number, h: number): Box {
  return { x: b.x + b.w / 2 - w / 2, y: b.y + b.h / 2 - h / 2, w, h };
}
/** The narrowest a cropped map gets, so the airport and the streets around it stay recognisable. */
export const MIN_SPAN_KM = 20;
/** Height over width of the whole-island map, and of a cropped one. */
const ISLAND_ASPECT = 1.3;
const CROP_ASPECT = 1;

const ISLAND_BOX = ((): Box => {
  const b = bounds(OUTLINE);
  const h = b.h + 16;
  return grow(b, Math.max(b.w + 16, h / ISLAND_ASPECT), h);
})();

/** The box around `points` with a margin, at least MIN_SPAN_KM across; the whole island when it would be as big. */
export function frameBox(points: Point[]): Box {
  const b = bounds(points);
  const pad = Math.max(2, 0.3 * Math.max(b.w, b.h));
  let w = Math.max(b.w + 2 * pad, MIN_SPAN_KM);
  let h = Math.max(b.h + 2 * pad, MIN_SPAN_KM);
  if (h / w < CROP_ASPECT) h = w * CROP_ASPECT;
  else w = h / CROP_ASPECT;
  return w >= ISLAND_BOX.w * 0.8 || h >= ISLAND_BOX.h * 0.8 ? ISLAND_BOX : grow(b, w, h);
}

interface Landmark {
  name: string;
  at: Point;
  rank: number;
}
const RANK: Record<string, number> = { city: 0, airport: 1, town: 2, beach: 3 };
/** Gazetteer places that help a reader find their bearings (cities first); the whole-island map names a few. */
const LANDMARKS: Landmark[] = gazetteer.places
  .filter((p) => p.kinds.some((k) => k in RANK))
  .map((p) => ({ name: p.name, at: project(p), rank: Math.min(...p.kinds.map((k) => RANK[k] ?? 9)) }))
  .sort((a, b) => a.rank - b.rank);
/** At most this many places are named on a map, at least 45 px apart: bearings, not clutter. */
const MAX_LANDMARKS = 6;
const ISLAND_LANDMARKS = new Set(['Colombo', 'Kandy', 'Galle', 'Jaffna', 'Trincomalee', 'Batticaloa', 'Anuradhapura', 'Nuwara Eliya', 'Ella']);

export interface MapView {
  pickup: LatLon;
  dropoff: LatLon;
  /** The driver's last position and what to call them ("Nimal"). */
  driver: (LatLon & { label: string }) | null;
  /** What the map frames: the whole island, the pickup and the driver on their way to it, or the whole trip. */
  frame: 'island' | 'pickup' | 'trip';
  /** The map's accessible name. */
  title: string;
}
export interface RenderedMap {
  svg: string;
  viewBox: Box;
  /** False when the drop-off lies outside the frame (an arrow at the edge points to it). */
  dropoffInFrame: boolean;
}

interface Label {
  at: Point;
  r: number;
  text: string;
  size: number;
  cls: string;
  required: boolean;
}
interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}
const overlapArea = (a: Rect, b: Rect) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));
const within = (r: Rect, b: Box, m: number) => r.x >= b.x + m && r.y >= b.y + m && r.x + r.w <= b.x + b.w - m && r.y + r.h <= b.y + b.h - m;

/**
 * Puts each label beside its point where it fits (right, left, above, below…) without covering a marker or another
 * label; a required one goes where it covers least, an optional one is dropped. Returns each label's SVG, or null.
 */
function placeLabels(labels: Label[], box: Box, obstacles: Rect[], u: number): Array<string | null> {
  const taken = [...obstacles];
  return labels.map((l) => {
    const w = l.text.length * l.size * (l.cls === 'l-place' ? 0.6 : 0.68); // system sans, generous: bold is wider
    const h = l.size * 1.05;
    const gap = l.r + 3 * u;
    const { x, y } = l.at;
    const options: Array<{ rect: Rect; anchor: 'start' | 'end' | 'middle' }> = [
      { rect: { x: x + gap, y: y - h / 2, w, h }, anchor: 'start' },
      { rect: { x: x - gap - w, y: y - h / 2, w, h }, anchor: 'end' },
      { rect: { x: x - w / 2, y: y - gap - h, w, h }, anchor: 'middle' },
      { rect: { x: x - w / 2, y: y + gap, w, h }, anchor: 'middle' },
      { rect: { x: x + l.r - w, y: y - gap - h, w, h }, anchor: 'end' },
      { rect: { x: x + l.r - w, y: y + gap, w, h }, anchor: 'end' },
      { rect: { x: x - l.r, y: y - gap - h, w, h }, anchor: 'start' },
      { rect: { x: x - l.r, y: y + gap, w, h }, anchor: 'start' },
    ];
    const clash = (r: Rect) => taken.reduce((sum, t) => sum + overlapArea(t, r), 0);
    const free = options.find((o) => within(o.rect, box, 2 * u) && clash(o.rect) === 0);
    const fits = options.filter((o) => within(o.rect, box, 0));
    const least = (fits.length ? fits : options).reduce((best, o) => (clash(o.rect) < clash(best.rect) ? o : best));
    const choice = free ?? (l.required ? least : undefined);
    if (!choice) return null;
    const { rect, anchor } = choice;
    taken.push(rect, { x: x - l.r, y: y - l.r, w: 2 * l.r, h: 2 * l.r });
    const tx = anchor === 'start' ? rect.x : anchor === 'end' ? rect.x + w : rect.x + w / 2;
    return `<text class="${l.cls}" x="${n1(tx)}" y="${n1(rect.y + h * 0.8)}" font-size="${n1(l.size)}" text-anchor="${anchor}">${escapeHtml(l.text)}</text>`;
  });
}

/** A round length for the scale bar, about a quarter of the map's width. */
function scaleKm(width: number): number {
  const target = width / 4;
  const step = 10 ** Math.floor(Math.log10(target));
  return [5, 2, 1].map((m) => m * step).find((v) => v <= target) ?? step;
}

/** Where the line from the frame's middle towards `p` leaves the frame (inset by `inset`), and its direction. */
function edgePoint(box: Box, p: Point, inset: number): { at: Point; dx: number; dy: number } {
  const c = { x: box.x + box.w / 2, y: box.y + box.h / 2 };
  const len = Math.hypot(p.x - c.x, p.y - c.y) || 1;
  const dx = (p.x - c.x) / len;
  const dy = (p.y - c.y) / len;
  const t = Math.min(Math.abs(dx) > 1e-9 ? (box.w / 2 - inset) / Math.abs(dx) : Infinity, Math.abs(dy) > 1e-9 ? (box.h / 2 - inset) / Math.abs(dy) : Infinity);
  return { at: { x: c.x + dx * t, y: c.y + dy * t }, dx, dy };
}

export function renderMap(view: MapView): RenderedMap {
  const pickup = project(view.pickup);
  const dropoff = project(view.dropoff);
  const driver = view.driver ? project(view.driver) : null;
  const framed = view.frame === 'island' || !driver ? null : view.frame === 'trip' ? [pickup, dropoff, driver] : [pickup, driver];
  let box = framed ? frameBox(framed) : ISLAND_BOX;
  if (framed && view.frame === 'pickup' && box !== ISLAND_BOX) {
    // The drop-off joins the frame when that keeps the frame small (a short transfer), else an arrow points to it.
    const withDropoff = frameBox([...framed, dropoff]);
    if (withDropoff !== ISLAND_BOX && withDropoff.w <= Math.max(box.w * 1.6, 30)) box = withDropoff;
  }
  const whole = box === ISLAND_BOX;
  const u = box.w / 360; // one CSS pixel of a phone-wide map, in km
  const inside = (p: Point) => p.x >= box.x && p.x <= box.x + box.w && p.y >= box.y && p.y <= box.y + box.h;
  const dropoffInFrame = inside(dropoff);

  const marks: string[] = [];
  const obstacles: Rect[] = [];
  const mark = (p: Point, r: number) => obstacles.push({ x: p.x - r, y: p.y - r, w: 2 * r, h: 2 * r });
  // Labelled in this order, so the driver's and the pickup's labels get the best places.
  const labels: Label[] = [];
  const label = (at: Point, r: number, text: string, cls = 'l-mark', size = 13) => labels.push({ at, r, text, size: size * u, cls, required: true });
  if (driver) label(driver, 10 * u, view.driver?.label ?? 'Driver', 'l-driver', 14);
  label(pickup, 8 * u, 'Pickup');
  if (dropoffInFrame) {
    const s = 7 * u;
    marks.push(`<rect class="m-dropoff" x="${n1(dropoff.x - s)}" y="${n1(dropoff.y - s)}" width="${n1(2 * s)}" height="${n1(2 * s)}" rx="${n1(2 * u)}"/>`);
    mark(dropoff, s * 1.2);
    label(dropoff, 8 * u, 'Drop-off');
  } else {
    const e = edgePoint(box, dropoff, 14 * u);
    const [tip, back, half] = [8 * u, 6 * u, 7 * u];
    const pts = [
      [e.at.x + e.dx * tip, e.at.y + e.dy * tip],
      [e.at.x - e.dx * back - e.dy * half, e.at.y - e.dy * back + e.dx * half],
      [e.at.x - e.dx * back + e.dy * half, e.at.y - e.dy * back - e.dx * half],
    ];
    marks.push(`<polygon class="m-dropoff m-arrow" points="${pts.map(([x, y]) => `${n1(x)},${n1(y)}`).join(' ')}"/>`);
    mark(e.at, 9 * u);
    label(e.at, 9 * u, 'To drop-off');
  }
  marks.push(`<circle class="m-pickup" cx="${n1(pickup.x)}" cy="${n1(pickup.y)}" r="${n1(7.5 * u)}"/>`);
  mark(pickup, 8 * u);
  if (driver) {
    marks.push(`<circle class="m-driver-halo" cx="${n1(driver.x)}" cy="${n1(driver.y)}" r="${n1(17 * u)}"/>`);
    marks.push(`<circle class="m-driver" cx="${n1(driver.x)}" cy="${n1(driver.y)}" r="${n1(8.5 * u)}"/>`);
    mark(driver, 10 * u);
  }

  const km = scaleKm(box.w);
  const sx = box.x + 12 * u;
  const sy = box.y + box.h - 12 * u;
  const scale = `<g class="scale"><path d="M${n1(sx)} ${n1(sy - 4 * u)}V${n1(sy)}H${n1(sx + km)}V${n1(sy - 4 * u)}" stroke-width="${n1(2 * u)}"/><text x="${n1(sx + km + 4 * u)}" y="${n1(sy)}" font-size="${n1(11 * u)}">${km} km</text></g>`;

  // Places for bearings: named only where a label fits, never on top of a marker (a dot only with its name).
  const near = (p: Point) => [pickup, dropoff, ...(driver ? [driver] : [])].some((m) => Math.hypot(m.x - p.x, m.y - p.y) < 14 * u);
  const landmarks: Landmark[] = [];
  for (const l of LANDMARKS) {
    const spaced = landmarks.every((o) => Math.hypot(o.at.x - l.at.x, o.at.y - l.at.y) > 45 * u);
    if (landmarks.length < MAX_LANDMARKS && inside(l.at) && !near(l.at) && spaced && (!whole || ISLAND_LANDMARKS.has(l.name))) landmarks.push(l);
  }
  const landmarkLabels = landmarks.map((l) => ({ at: l.at, r: 2.5 * u, text: l.name, size: 11.5 * u, cls: 'l-place', required: false }));
  const placed = placeLabels([...labels, ...landmarkLabels], box, [...obstacles, { x: sx, y: sy - 14 * u, w: km + 50 * u, h: 16 * u }], u);
  const dots = landmarks.flatMap((l, i) =>
    placed[labels.length + i] ? [`<circle class="m-place" cx="${n1(l.at.x)}" cy="${n1(l.at.y)}" r="${n1(2.5 * u)}"/>`] : [],
  );
  const texts = placed.filter((t) => t !== null);

  const vb = `${n1(box.x)} ${n1(box.y)} ${n1(box.w)} ${n1(box.h)}`;
  const svg =
    `<svg class="map-svg" viewBox="${vb}" role="img" aria-labelledby="map-title" preserveAspectRatio="xMidYMid meet">` +
    `<title id="map-title">${escapeHtml(view.title)}</title>` +
    `<rect class="sea" x="${n1(box.x)}" y="${n1(box.y)}" width="${n1(box.w)}" height="${n1(box.h)}"/>` +
    `<path class="land" d="${OUTLINE_PATH}" stroke-width="${n1(1.5 * u)}"/>` +
    `<g class="marks" stroke-width="${n1(2.5 * u)}">${dots.join('')}${marks.join('')}</g>` +
    `<g class="labels" stroke-width="${n1(3.5 * u)}">${texts.join('')}</g>${scale}</svg>`;
  return { svg, viewBox: { ...box }, dropoffInFrame };
}

/** A small whole-island map showing where a cropped map's frame lies (and the pickup and drop-off). */
export function renderInset(frame: Box, pickup: LatLon, dropoff: LatLon): string {
  const b = ISLAND_BOX;
  const u = b.w / 80;
  const [p, d] = [project(pickup), project(dropoff)];
  // The frame, kept inside the inset so its outline shows whole.
  const [x0, y0] = [Math.max(frame.x, b.x + u), Math.max(frame.y, b.y + u)];
  const [x1, y1] = [Math.min(frame.x + frame.w, b.x + b.w - u), Math.min(frame.y + frame.h, b.y + b.h - u)];
  return (
    `<svg class="inset" viewBox="${n1(b.x)} ${n1(b.y)} ${n1(b.w)} ${n1(b.h)}" role="img" aria-label="Where the map lies in Sri Lanka">` +
    `<path class="land" d="${OUTLINE_PATH}" stroke-width="${n1(u)}"/>` +
    `<circle class="m-pickup" cx="${n1(p.x)}" cy="${n1(p.y)}" r="${n1(3 * u)}"/><circle class="m-dropoff" cx="${n1(d.x)}" cy="${n1(d.y)}" r="${n1(3 * u)}"/>` +
    `<rect class="frame" x="${n1(x0)}" y="${n1(y0)}" width="${n1(Math.max(x1 - x0, 4 * u))}" height="${n1(Math.max(y1 - y0, 4 * u))}" stroke-width="${n1(1.5 * u)}"/></svg>`
  );
}
