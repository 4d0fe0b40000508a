/*
 * Loaded with `--import` into a child process: `new Date()` and `Date.now()` there read the
 * machine's clock moved on by DATE_MOVED_ON_DAYS days, as on a later day (an injected clock for code
 * that reads the machine's).
 */
const movedBy = Number(process.env.DATE_MOVED_ON_DAYS ?? 0) * 24 * 3600_000;
const MachineDate = Date;

globalThis.Date = class extends MachineDate {
  constructor(...args: ConstructorParameters<typeof Date> | []) {
    if (args.length === 0) super(MachineDate.now() + movedBy);
    else super(...(args as ConstructorParameters<typeof Date>));
  }
  static override now(): number {
    return MachineDate.now() + movedBy;
  }
} as DateConstructor;
