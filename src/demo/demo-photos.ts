import sharp from 'sharp';
import { keepUploadedImage } from '../domain/menu/menu-images.ts';
import { allProducts, updateProduct } from '../domain/menu/products.service.ts';
import type { Ctx } from '../domain/shared/context.ts';
import type { ImageFetcher } from '../domain/shared/image-fetcher.ts';
import { setStorefrontPicture } from '../domain/store/storefront-look.ts';

/*
 * The demo restaurant's pictures, drawn here (no download, no files in the repository): a flat,
 * top-down picture of each demo product on a table (1200×900, the product page's 4:3), the
 * restaurant's logo (a round emblem) and its cover (3:1). SVG rendered to PNG by sharp; the
 * image pipeline then checks, resizes and keeps them as it does an owner's upload.
 */

const width = 1200;
const height = 900;

/** The table every dish stands on: warm wood with soft grain, and the dish's shadow. */
const table = (w = width, h = height) => `
<defs>
  <linearGradient id="wood" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="#caa27a"/><stop offset="1" stop-color="#a87b52"/>
  </linearGradient>
  <radialGradient id="shade" cx="0.5" cy="0.5" r="0.5">
    <stop offset="0.7" stop-color="#000" stop-opacity="0.28"/><stop offset="1" stop-color="#000" stop-opacity="0"/>
  </radialGradient>
</defs>
<rect width="${w}" height="${h}" fill="url(#wood)"/>
${Array.from({ length: 9 }, (_, i) => `<path d="M0 ${60 + i * 110} C ${w / 3} ${30 + i * 110}, ${(2 * w) / 3} ${110 + i * 110}, ${w} ${70 + i * 110}" stroke="#8e6442" stroke-opacity="0.18" stroke-width="6" fill="none"/>`).join('')}`;

const plate = (cx: number, cy: number, r: number) => `
<circle cx="${cx + 14}" cy="${cy + 22}" r="${r + 12}" fill="url(#shade)"/>
<circle cx="${cx}" cy="${cy}" r="${r}" fill="#fbfaf7"/>
<circle cx="${cx}" cy="${cy}" r="${r * 0.8}" fill="#f1eee8"/>`;

const basil = (x: number, y: number, turn: number, size = 1) =>
  `<g transform="translate(${x} ${y}) rotate(${turn}) scale(${size})"><path d="M0 0 C 30 -34, 78 -30, 96 0 C 78 30, 30 34, 0 0 Z" fill="#3f8f3a"/><path d="M6 0 L 88 0" stroke="#2c6a28" stroke-width="4"/></g>`;

/** A pizza of `toppings` on its board. */
const pizza = (toppings: string) => `
${table()}
<circle cx="624" cy="472" r="372" fill="url(#shade)"/>
<circle cx="600" cy="450" r="350" fill="#8a5a33"/>
<circle cx="600" cy="450" r="318" fill="#e0a862"/>
<circle cx="600" cy="450" r="272" fill="#c7432b"/>
${toppings}`;

const mozzarella = [
  [520, 360],
  [690, 350],
  [610, 470],
  [470, 520],
  [720, 540],
  [590, 610],
]
  .map(([x, y]) => `<ellipse cx="${x}" cy="${y}" rx="58" ry="48" fill="#f8f1df"/>`)
  .join('');

const salami = [
  [500, 330],
  [680, 320],
  [600, 450],
  [440, 480],
  [760, 470],
  [530, 600],
  [690, 610],
]
  .map(
    ([x, y]) =>
      `<circle cx="${x}" cy="${y}" r="50" fill="#a3262a"/><circle cx="${(x ?? 0) - 16}" cy="${(y ?? 0) - 10}" r="7" fill="#f3c9b8"/><circle cx="${(x ?? 0) + 14}" cy="${(y ?? 0) + 12}" r="6" fill="#f3c9b8"/><circle cx="${(x ?? 0) + 18}" cy="${(y ?? 0) - 18}" r="5" fill="#f3c9b8"/>`,
  )
  .join('');

const cheeses = `
<path d="M600 450 L 600 182 A 268 268 0 0 1 868 450 Z" fill="#f4d35e"/>
<path d="M600 450 L 868 450 A 268 268 0 0 1 600 718 Z" fill="#f8f1df"/>
<path d="M600 450 L 600 718 A 268 268 0 0 1 332 450 Z" fill="#efe3b0"/>
<path d="M600 450 L 332 450 A 268 268 0 0 1 600 182 Z" fill="#e9c46a"/>
${[
  [500, 330],
  [700, 560],
  [460, 560],
  [730, 340],
]
  .map(([x, y]) => `<circle cx="${x}" cy="${y}" r="16" fill="#5b7fa3" fill-opacity="0.55"/>`)
  .join('')}`;

/** A slice of bruschetta: toasted bread with diced tomato and a basil leaf, `scale` of full size. */
const bruschettaSlice = (x: number, y: number, turn: number, scale = 1) => `
<g transform="translate(${x} ${y}) rotate(${turn}) scale(${scale})">
  <rect x="-150" y="-80" width="300" height="160" rx="60" fill="#b9773b"/>
  <rect x="-132" y="-64" width="264" height="128" rx="50" fill="#e4b36d"/>
  ${[
    [-80, -20],
    [-20, -35],
    [40, -15],
    [95, 5],
    [-60, 30],
    [10, 25],
    [70, 40],
  ]
    .map(([dx, dy]) => `<rect x="${dx}" y="${dy}" width="34" height="30" rx="6" fill="#d63d2e"/>`)
    .join('')}
  ${basil(-40, -6, -20, 0.5)}
</g>`;

const bruschetta = `
${table()}
${plate(600, 450, 380)}
${bruschettaSlice(480, 330, -12)}${bruschettaSlice(710, 460, 8)}${bruschettaSlice(520, 590, -4)}`;

const vitelloTonnato = `
${table()}
${plate(600, 450, 380)}
${[0, 60, 120, 180, 240, 300]
  .map(
    (turn) =>
      `<ellipse cx="600" cy="330" rx="95" ry="125" fill="#e7b3a4" stroke="#d49485" stroke-width="6" transform="rotate(${turn} 600 450)"/>`,
  )
  .join('')}
<path d="M430 420 C 520 360, 640 520, 770 430 C 700 560, 520 520, 430 420 Z" fill="#efe4c2"/>
<path d="M470 520 C 560 480, 660 600, 740 520" stroke="#efe4c2" stroke-width="26" fill="none" stroke-linecap="round"/>
${[
  [520, 430],
  [600, 470],
  [680, 440],
  [560, 540],
  [650, 530],
]
  .map(([x, y]) => `<circle cx="${x}" cy="${y}" r="12" fill="#55702e"/>`)
  .join('')}`;

/** A drink: a glass of `liquid` from above and beside, with what floats in it. */
const glass = (liquid: string, extra: string) => `
${table()}
<ellipse cx="630" cy="780" rx="230" ry="50" fill="#000" fill-opacity="0.2"/>
<path d="M420 170 L 780 170 L 740 770 L 460 770 Z" fill="#eef6f8" fill-opacity="0.55" stroke="#ffffff" stroke-width="10"/>
<path d="M436 330 L 764 330 L 738 760 L 462 760 Z" fill="${liquid}"/>
<ellipse cx="600" cy="330" rx="164" ry="26" fill="#ffffff" fill-opacity="0.35"/>
${extra}
<path d="M470 200 L 500 740" stroke="#ffffff" stroke-opacity="0.6" stroke-width="14" stroke-linecap="round"/>`;

const bubbles = [
  [520, 700, 10],
  [560, 620, 8],
  [640, 680, 12],
  [690, 560, 9],
  [600, 480, 11],
  [530, 420, 7],
  [670, 400, 8],
  [590, 580, 6],
]
  .map(([x, y, r]) => `<circle cx="${x}" cy="${y}" r="${r}" fill="#ffffff" fill-opacity="0.75"/>`)
  .join('');

const lemonade = glass(
  '#f5d547',
  `${bubbles}
<rect x="500" y="380" width="90" height="90" rx="14" fill="#ffffff" fill-opacity="0.55" transform="rotate(12 545 425)"/>
<rect x="610" y="420" width="80" height="80" rx="14" fill="#ffffff" fill-opacity="0.5" transform="rotate(-10 650 460)"/>
<circle cx="760" cy="210" r="110" fill="#f2c230"/><circle cx="760" cy="210" r="92" fill="#fbe98c"/>
${[0, 45, 90, 135].map((turn) => `<path d="M668 210 L 852 210" stroke="#f2c230" stroke-width="6" transform="rotate(${turn} 760 210)"/>`).join('')}
<path d="M650 120 L 560 700" stroke="#e0474c" stroke-width="22" stroke-linecap="round"/>`,
);

const water = `
${table()}
<ellipse cx="640" cy="810" rx="200" ry="42" fill="#000" fill-opacity="0.22"/>
<path d="M540 90 L 660 90 L 660 230 C 660 290, 760 320, 760 400 L 760 790 L 440 790 L 440 400 C 440 320, 540 290, 540 230 Z" fill="#9fd3d9" fill-opacity="0.75" stroke="#e8f7f9" stroke-width="10"/>
<rect x="530" y="60" width="140" height="50" rx="12" fill="#2f6f8f"/>
<rect x="440" y="470" width="320" height="170" fill="#2f6f8f"/>
<path d="M480 555 C 540 505, 600 605, 660 555 S 720 515, 740 545" stroke="#e8f7f9" stroke-width="12" fill="none"/>
${bubbles}
<path d="M480 420 L 480 760" stroke="#ffffff" stroke-opacity="0.6" stroke-width="16" stroke-linecap="round"/>`;

const chianti = `
${table()}
<ellipse cx="470" cy="800" rx="190" ry="40" fill="#000" fill-opacity="0.22"/>
<ellipse cx="820" cy="810" rx="150" ry="34" fill="#000" fill-opacity="0.22"/>
<path d="M420 60 L 500 60 L 500 260 C 500 320, 600 360, 600 460 L 600 790 L 320 790 L 320 460 C 320 360, 420 320, 420 260 Z" fill="#2d4a2b"/>
<path d="M320 560 C 320 500, 600 500, 600 560 L 600 790 L 320 790 Z" fill="#c9a45c"/>
${[0, 1, 2, 3, 4, 5].map((i) => `<path d="M${330 + i * 46} 530 L ${350 + i * 46} 790" stroke="#a9823d" stroke-width="8"/>`).join('')}
<rect x="410" y="40" width="100" height="40" rx="8" fill="#8c1c2b"/>
<path d="M700 250 L 940 250 C 940 420, 880 500, 820 500 C 760 500, 700 420, 700 250 Z" fill="#f4f7f8" fill-opacity="0.5" stroke="#ffffff" stroke-width="8"/>
<path d="M708 330 L 932 330 C 926 430, 876 490, 820 490 C 764 490, 714 430, 708 330 Z" fill="#7b1a2c"/>
<path d="M820 500 L 820 780" stroke="#ffffff" stroke-width="12"/>
<ellipse cx="820" cy="790" rx="100" ry="18" fill="#ffffff" fill-opacity="0.8"/>`;

/** The demo products' pictures by product name. */
const productPictures: Record<string, string> = {
  Bruschetta: bruschetta,
  'Vitello tonnato': vitelloTonnato,
  Margherita: pizza(`${mozzarella}${basil(520, 420, -30)}${basil(650, 520, 40)}${basil(560, 300, 10, 0.8)}`),
  Diavola: pizza(
    `${mozzarella}${salami}${[
      [560, 380],
      [650, 520],
      [480, 430],
    ]
      .map(([x, y]) => `<path d="M${x} ${y} q 20 -30 40 0" stroke="#e0542f" stroke-width="8" fill="none"/>`)
      .join('')}`,
  ),
  'Quattro formaggi': pizza(cheeses),
  'Sparkling water': water,
  Chianti: chianti,
  Lemonade: lemonade,
};

/** The logo: a round emblem of a pizza slice and a basil leaf on the trattoria's red. */
const logo = `
<circle cx="200" cy="200" r="196" fill="#b3261e"/>
<circle cx="200" cy="200" r="172" fill="none" stroke="#f8f1df" stroke-width="10"/>
<path d="M200 300 L 110 120 C 170 90, 230 90, 290 120 Z" fill="#e0a862"/>
<path d="M200 280 L 124 132 C 176 110, 224 110, 276 132 Z" fill="#f4d35e"/>
<circle cx="180" cy="160" r="18" fill="#a3262a"/><circle cx="228" cy="190" r="16" fill="#a3262a"/><circle cx="196" cy="226" r="14" fill="#a3262a"/>
${basil(236, 292, -35, 0.7)}`;

/** The cover: a table laid with pizza, bruschetta and a glass of wine, 3:1. */
const cover = `
${table(1200, 400)}
<circle cx="300" cy="220" r="250" fill="#8a5a33"/><circle cx="300" cy="220" r="228" fill="#e0a862"/><circle cx="300" cy="220" r="196" fill="#c7432b"/>
${[
  [240, 150],
  [360, 160],
  [300, 250],
  [210, 290],
  [390, 300],
]
  .map(([x, y]) => `<ellipse cx="${x}" cy="${y}" rx="44" ry="36" fill="#f8f1df"/>`)
  .join('')}
${basil(250, 210, -30)}${basil(340, 110, 20, 0.8)}
<circle cx="720" cy="200" r="190" fill="#fbfaf7"/><circle cx="720" cy="200" r="150" fill="#f1eee8"/>
${bruschettaSlice(680, 170, -10, 0.8)}${bruschettaSlice(770, 260, 8, 0.72)}
<path d="M980 40 L 1140 40 C 1140 170, 1100 230, 1060 230 C 1020 230, 980 170, 980 40 Z" fill="#f4f7f8" fill-opacity="0.5" stroke="#ffffff" stroke-width="6"/>
<path d="M986 100 L 1134 100 C 1128 180, 1096 222, 1060 222 C 1024 222, 992 180, 986 100 Z" fill="#7b1a2c"/>
<path d="M1060 230 L 1060 360" stroke="#ffffff" stroke-width="10"/><ellipse cx="1060" cy="366" rx="70" ry="14" fill="#ffffff" fill-opacity="0.85"/>`;

const png = (svg: string, w: number, h: number) =>
  sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${svg}</svg>`,
    ),
  )
    .png()
    .toBuffer();

/**
 * Gives the demo restaurant (the ctx's) its pictures as its owner would upload them: a photo on
 * each demo product drawn here, the logo and the cover, kept by `keeper` and served from `baseUrl`.
 */
export async function pictureDemoRestaurant(ctx: Ctx, keeper: ImageFetcher, baseUrl: string): Promise<void> {
  for (const product of await allProducts(ctx, null)) {
    const svg = productPictures[product.name];
    if (svg === undefined) continue;
    const kept = await keepUploadedImage(ctx, keeper, await png(svg, width, height), baseUrl);
    if (!kept.ok) throw new Error(`the demo picture of ${product.name} was refused (${kept.refused})`);
    await updateProduct(ctx, product.id, { image_url: kept.url });
  }
  for (const [picture, bytes] of [
    ['logo', await png(logo, 400, 400)],
    ['cover', await png(cover, 1200, 400)],
  ] as const) {
    const kept = await keeper.keep(bytes);
    if (!kept.ok) throw new Error(`the demo ${picture} was refused: ${kept.error}`);
    await setStorefrontPicture(ctx, picture, kept.sizes);
  }
}
