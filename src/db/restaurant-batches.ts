/**
 * A batch of lookups (a DataLoader's) run as one query per restaurant, side by side: on Citus
 * each query goes to its restaurant's node alone, and a node that fails fails only its
 * restaurants' lookups, not those of the whole batch. Requests of one restaurant still share a
 * query. `restaurantOf` may say null (a lookup that names no restaurant): those go together.
 * `load` answers its keys in their order, each with its value or an Error.
 */
export async function perRestaurant<K, V>(
  keys: readonly K[],
  restaurantOf: (key: K) => string | null,
  load: (keys: K[], restaurant: string | null) => Promise<(V | Error)[]>,
): Promise<(V | Error)[]> {
  const groups = new Map<string | null, number[]>();
  keys.forEach((key, index) => {
    const restaurant = restaurantOf(key);
    groups.set(restaurant, [...(groups.get(restaurant) ?? []), index]);
  });
  const answers: (V | Error)[] = new Array(keys.length);
  await Promise.all(
    [...groups].map(async ([restaurant, indexes]) => {
      const values = await load(
        indexes.map((index) => keys[index] as K),
        restaurant,
      ).catch((error: unknown) =>
        indexes.map(() => (error instanceof Error ? error : new Error(String(error)))),
      );
      indexes.forEach((index, i) => {
        answers[index] = values[i] as V | Error;
      });
    }),
  );
  return answers;
}
