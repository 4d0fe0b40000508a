/*
 * The reports page's chart (dashboard/pages/reports-chart.eta), drawn by Chart.js from the page's
 * JSON data block: for sales, bars of the gross total per period (amount axis on the left) and the
 * orders as a line (count axis on the right); for products, horizontal bars of the top products'
 * gross. Amounts in the currency and language of the page. Without Chart.js (or JavaScript) the
 * chart stays hidden; the tables carry the same figures.
 */
(() => {
  const box = document.getElementById('report-chart-box');
  const canvas = document.getElementById('report-chart');
  const block = document.getElementById('report-chart-data');
  if (!box || !canvas || !block || !('Chart' in window)) return;
  const data = JSON.parse(block.textContent);
  const money = new Intl.NumberFormat(data.locale, { style: 'currency', currency: data.currency });
  const count = new Intl.NumberFormat(data.locale, { maximumFractionDigits: 0 });
  const ink = '#1d1d1b';
  const brand = '#1d5c3a';
  const second = '#1d4f91';
  window.Chart.defaults.color = ink;
  window.Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;

  const [amounts, orders] = data.series;
  const sales = () => ({
    type: 'bar',
    data: {
      labels: data.labels,
      datasets: [
        { label: amounts.label, data: amounts.values, backgroundColor: brand, yAxisID: 'amount', order: 2 },
        {
          label: orders.label,
          data: orders.values,
          type: 'line',
          borderColor: second,
          backgroundColor: second,
          yAxisID: 'orders',
          order: 1,
        },
      ],
    },
    options: {
      scales: {
        amount: { position: 'left', beginAtZero: true, ticks: { callback: (value) => money.format(value) } },
        orders: {
          position: 'right',
          beginAtZero: true,
          grid: { drawOnChartArea: false },
          ticks: { precision: 0, callback: (value) => count.format(value) },
        },
      },
      plugins: {
        // The line is drawn over the bars (its `order`); the legend keeps the data's order.
        legend: { labels: { sort: (a, b) => a.datasetIndex - b.datasetIndex } },
        tooltip: {
          callbacks: {
            label: (item) =>
              `${item.dataset.label}: ${item.dataset.yAxisID === 'amount' ? money.format(item.parsed.y) : count.format(item.parsed.y)}`,
          },
        },
      },
    },
  });
  const products = () => ({
    type: 'bar',
    data: {
      labels: data.labels,
      datasets: [{ label: amounts.label, data: amounts.values, backgroundColor: brand }],
    },
    options: {
      indexAxis: 'y',
      scales: { x: { beginAtZero: true, ticks: { callback: (value) => money.format(value) } } },
      plugins: {
        legend: { display: false },
        tooltip: { callbacks: { label: (item) => money.format(item.parsed.x) } },
      },
    },
  });

  const config = data.kind === 'sales' ? sales() : products();
  // A bar a product: the box grows with them.
  if (data.kind === 'products') box.style.height = `${6 + data.labels.length * 2.5}rem`;
  box.hidden = false;
  new window.Chart(canvas, {
    ...config,
    options: { ...config.options, animation: false, responsive: true, maintainAspectRatio: false },
  });
})();
