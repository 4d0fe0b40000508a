-- A restaurant's invitations to its team (docs/console-and-dashboard.md, "Team"): an owner invites
-- an e-mail address as owner or staff; the mailed link's token is stored as its SHA-256 only, works
-- once (the row goes when it is accepted or withdrawn) until it expires (7 days). One invitation
-- per address and restaurant: inviting again replaces it.
CREATE TABLE invitations (
  tenant_id uuid NOT NULL REFERENCES restaurants (id),
  id uuid NOT NULL,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'staff')),
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, id)
);
CREATE UNIQUE INDEX invitations_email ON invitations (tenant_id, lower(email));
CREATE INDEX invitations_token ON invitations (token_hash);
