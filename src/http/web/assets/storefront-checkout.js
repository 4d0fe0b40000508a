// The checkout with delivery zones (storefront cart page): as the guest types the postal code,
// the zone's fee and the total with it are shown, and the form says it showed that fee
// (seen_delivery_fee), so the order is placed in one step. Without this script the page shows the
// fee after the first submit instead. Zones match as the service matches them (delivery-zones.ts).
const form = document.querySelector('form[data-zones]');
if (form) {
  const zones = JSON.parse(form.dataset.zones);
  const postalCode = form.elements.namedItem('delivery_postal_code');
  const note = form.querySelector('.delivery-fee');
  const total = form.querySelector('.total .price');
  const totalNote = form.querySelector('.total .muted');
  let seen = form.elements.namedItem('seen_delivery_fee');
  if (!seen) {
    seen = document.createElement('input');
    seen.type = 'hidden';
    seen.name = 'seen_delivery_fee';
    form.prepend(seen);
  }
  const matches = (zoneCode, code) =>
    zoneCode.endsWith('*') ? code.startsWith(zoneCode.slice(0, -1)) : zoneCode === code;
  const update = () => {
    const typed = postalCode.value.trim();
    const code = typed.toUpperCase().replace(/\s+/g, '');
    const delivery = form.elements.namedItem('type')?.value === 'delivery';
    const zone =
      delivery && code !== ''
        ? zones.find((z) => z.codes.some((zoneCode) => matches(zoneCode, code)))
        : undefined;
    seen.disabled = zone === undefined;
    seen.value = zone ? String(zone.fee) : '';
    note.hidden = zone === undefined;
    note.textContent = zone ? zone.note.replace('{code}', typed) : '';
    total.textContent = zone ? zone.total : form.dataset.total;
    totalNote.textContent = zone ? zone.totalNote : form.dataset.totalNote;
  };
  postalCode.addEventListener('input', update);
  form.addEventListener('change', update);
}
