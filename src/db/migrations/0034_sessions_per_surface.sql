-- A browser session belongs to the surface it was signed in on (consent page, console,
-- dashboard): its token is accepted there only (the storefront preview carries the console's).
-- Sessions from before have none and are accepted nowhere: their accounts sign in once more.
ALTER TABLE sessions ADD COLUMN surface text;
