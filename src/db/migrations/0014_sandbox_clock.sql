-- The sandbox clock (SANDBOX_CLOCK, development only, src/domain/sandbox-clock.ts): how many
-- seconds every process of the installation is ahead of the system clock. One row;
-- `servery clock advance` moves it, and each process started with the setting reads it every second.
CREATE TABLE sandbox_clock (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  offset_seconds integer NOT NULL DEFAULT 0 CHECK (offset_seconds >= 0)
);
INSERT INTO sandbox_clock DEFAULT VALUES;
