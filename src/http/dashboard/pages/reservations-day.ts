import type { Reservation } from '../../../domain/reservations/reservation.schema.ts';
import type { ReservationStatus } from '../../../domain/reservations/reservation-status.ts';
import type { DashboardArea, DashboardTable } from '../../../domain/store/table.schema.ts';

/*
 * The day view's grid: a row per table (grouped by area, in the floor's order), a column per time
 * the day offers, and each reservation in the row of each of its tables, from the column of its
 * start across the columns of its duration. Two reservations of one table whose columns overlap (a
 * party seated late, a finished one whose time was not up) go on separate lines of that table's
 * row, so no cell is ever shared. Cancelled and declined reservations hold no table, and a
 * reservation outside the day's times (after midnight, of the day before's late opening) has no
 * column: only the list below the grid shows them.
 * Where the times break (lunch, then dinner: no time offered between 13:45 and 17:30), a narrow
 * column marks the break, so the columns either side are never read as one run; a reservation
 * running across it spans it too. The first time of each run is labelled with its own time.
 */

const offTheFloor: readonly ReservationStatus[] = ['cancelled', 'declined'];

/** A column of the grid: a time offered (the first of its run or not), or a break between runs. */
export type GridColumn =
  | { kind: 'time'; time: number; runStart: boolean }
  | { kind: 'break'; after: number; before: number };

/** The grid's columns: `times` (ascending) with a break wherever the next is more than `slotMinutes` on. */
export function gridColumns(times: readonly number[], slotMinutes: number): GridColumn[] {
  const columns: GridColumn[] = [];
  times.forEach((time, index) => {
    const previous = times[index - 1];
    const runStart = previous === undefined || time - previous > slotMinutes * 60_000;
    if (previous !== undefined && runStart) columns.push({ kind: 'break', after: previous, before: time });
    columns.push({ kind: 'time', time, runStart });
  });
  return columns;
}

/** A cell of a line: a reservation across `span` columns (breaks it runs across included), empty, or a break's. */
export type GridCell = { reservation: Reservation; span: number } | null | 'break';

export interface GridRow {
  /** null: reservations whose tables are gone (or that have none). */
  table: DashboardTable | null;
  /** At least one line; each has a cell per column (a reservation's cell counts for `span` columns). */
  lines: GridCell[][];
}

export interface GridGroup {
  /** null: the tables without an area. */
  area: DashboardArea | null;
  rows: GridRow[];
}

/** The column a reservation starts in (the last time not after its start) and how many it covers. */
function placeOf(times: readonly number[], reservation: Reservation): { column: number; span: number } {
  const start = reservation.starts_at.getTime();
  const end = start + reservation.duration_minutes * 60_000;
  const column = Math.max(0, times.filter((time) => time <= start).length - 1);
  const last = times.filter((time) => time < end).length;
  return { column, span: Math.max(1, last - column) };
}

/** A row's lines: each reservation on the first line where its columns are free. */
function linesOf(times: readonly number[], reservations: readonly Reservation[]): GridCell[][] {
  const lines: { ends: number; cells: GridCell[]; taken: number }[] = [];
  for (const reservation of reservations) {
    const { column, span } = placeOf(times, reservation);
    let line = lines.find((candidate) => candidate.ends <= column);
    if (!line) {
      line = { ends: 0, cells: [], taken: 0 };
      lines.push(line);
    }
    for (; line.taken < column; line.taken += 1) line.cells.push(null);
    line.cells.push({ reservation, span });
    line.taken = column + span;
    line.ends = line.taken;
  }
  if (lines.length === 0) lines.push({ ends: 0, cells: [], taken: 0 });
  return lines.map((line) => {
    const cells = [...line.cells];
    for (let taken = line.taken; taken < times.length; taken += 1) cells.push(null);
    return cells;
  });
}

/**
 * A line's cells over the times, with the breaks put in: a reservation whose columns lie on both
 * sides of a break spans it, any other line gets the break's own cell there.
 */
function withBreaks(columns: readonly GridColumn[], cells: readonly GridCell[]): GridCell[] {
  const out: GridCell[] = [];
  let next = 0; // the next of `cells`
  let covered = 0; // time columns the last reservation cell still covers
  let last: { reservation: Reservation; span: number } | null = null;
  for (const column of columns) {
    if (column.kind === 'break') {
      if (covered > 0 && last) last.span += 1;
      else out.push('break');
      continue;
    }
    if (covered > 0) {
      covered -= 1;
      continue;
    }
    const cell = cells[next] ?? null;
    next += 1;
    if (cell !== null && cell !== 'break') {
      last = { ...cell };
      out.push(last);
      covered = cell.span - 1;
    } else out.push(null);
  }
  return out;
}

/**
 * The grid of a day: `columns` of its times (gridColumns: at least one time), `reservations` of
 * the day by start.
 */
export function dayGrid(
  columns: readonly GridColumn[],
  areas: readonly DashboardArea[],
  tables: readonly DashboardTable[],
  reservations: readonly Reservation[],
): GridGroup[] {
  const times = columns.flatMap((column) => (column.kind === 'time' ? [column.time] : []));
  const first = times[0] as number;
  const last = times.at(-1) as number;
  const onFloor = reservations.filter(
    (reservation) =>
      !offTheFloor.includes(reservation.status) &&
      reservation.starts_at.getTime() <= last &&
      reservation.starts_at.getTime() + reservation.duration_minutes * 60_000 > first,
  );
  const linesAt = (held: readonly Reservation[]) =>
    linesOf(times, held).map((line) => withBreaks(columns, line));
  const rowOf = (table: DashboardTable): GridRow => ({
    table,
    lines: linesAt(onFloor.filter((reservation) => reservation.table_ids.includes(table.id))),
  });
  const groups: GridGroup[] = [...areas, null]
    .map((area) => ({
      area,
      rows: tables.filter((table) => table.area_id === (area?.id ?? null)).map(rowOf),
    }))
    .filter((group) => group.rows.length > 0);
  const known = new Set(tables.map((table) => table.id));
  const placeless = onFloor.filter((reservation) => !reservation.table_ids.some((id) => known.has(id)));
  if (placeless.length === 0) return groups;
  const row = { table: null, lines: linesAt(placeless) };
  const withoutArea = groups.at(-1);
  if (withoutArea?.area === null) withoutArea.rows.push(row);
  else groups.push({ area: null, rows: [row] });
  return groups;
}
