/**
 * First-level subdivisions (states, provinces, regions) of the countries searched most, in the
 * canonical "Region,Country" form. One per line: `Name||CODE|Type` (the empty field keeps the
 * same column layout as cities).
 */
export const REGIONS = `
Alabama||US|State
Alaska||US|State
Arizona||US|State
Arkansas||US|State
California||US|State
Colorado||US|State
Connecticut||US|State
Delaware||US|State
District of Columbia||US|State
Florida||US|State
Georgia||US|State
Hawaii||US|State
Idaho||US|State
Illinois||US|State
Indiana||US|State
Iowa||US|State
Kansas||US|State
Kentucky||US|State
Louisiana||US|State
Maine||US|State
Maryland||US|State
Massachusetts||US|State
Michigan||US|State
Minnesota||US|State
Mississippi||US|State
Missouri||US|State
Montana||US|State
Nebraska||US|State
Nevada||US|State
New Hampshire||US|State
New Jersey||US|State
New Mexico||US|State
New York||US|State
North Carolina||US|State
North Dakota||US|State
Ohio||US|State
Oklahoma||US|State
Oregon||US|State
Pennsylvania||US|State
Rhode Island||US|State
South Carolina||US|State
South Dakota||US|State
Tennessee||US|State
Texas||US|State
Utah||US|State
Vermont||US|State
Virginia||US|State
Washington||US|State
West Virginia||US|State
Wisconsin||US|State
Wyoming||US|State
Alberta||CA|Province
British Columbia||CA|Province
Manitoba||CA|Province
New Brunswick||CA|Province
Newfoundland and Labrador||CA|Province
Nova Scotia||CA|Province
Ontario||CA|Province
Prince Edward Island||CA|Province
Quebec||CA|Province
Saskatchewan||CA|Province
Northwest Territories||CA|Province
Nunavut||CA|Province
Yukon||CA|Province
England||GB|Region
Scotland||GB|Region
Wales||GB|Region
Northern Ireland||GB|Region
New South Wales||AU|State
Victoria||AU|State
Queensland||AU|State
Western Australia||AU|State
South Australia||AU|State
Tasmania||AU|State
Australian Capital Territory||AU|State
Northern Territory||AU|State
Baden-Wurttemberg||DE|State
Bavaria||DE|State
Berlin||DE|State
Brandenburg||DE|State
Bremen||DE|State
Hamburg||DE|State
Hesse||DE|State
Lower Saxony||DE|State
Mecklenburg-Vorpommern||DE|State
North Rhine-Westphalia||DE|State
Rhineland-Palatinate||DE|State
Saarland||DE|State
Saxony||DE|State
Saxony-Anhalt||DE|State
Schleswig-Holstein||DE|State
Thuringia||DE|State
Ile-de-France||FR|Region
Provence-Alpes-Cote d'Azur||FR|Region
Auvergne-Rhone-Alpes||FR|Region
Occitanie||FR|Region
Nouvelle-Aquitaine||FR|Region
Hauts-de-France||FR|Region
Grand Est||FR|Region
Brittany||FR|Region
Catalonia||ES|Region
Community of Madrid||ES|Region
Andalusia||ES|Region
Valencian Community||ES|Region
Basque Country||ES|Region
Lombardy||IT|Region
Lazio||IT|Region
Campania||IT|Region
Tuscany||IT|Region
Piedmont||IT|Region
Veneto||IT|Region
Sicily||IT|Region
Maharashtra||IN|State
Karnataka||IN|State
Tamil Nadu||IN|State
Delhi||IN|State
Telangana||IN|State
West Bengal||IN|State
Gujarat||IN|State
Uttar Pradesh||IN|State
Kerala||IN|State
Rajasthan||IN|State
Sao Paulo||BR|State
Rio de Janeiro||BR|State
Minas Gerais||BR|State
Bahia||BR|State
Parana||BR|State
Rio Grande do Sul||BR|State
Federal District||BR|State
Mexico City||MX|State
Jalisco||MX|State
Nuevo Leon||MX|State
State of Mexico||MX|State
`;
